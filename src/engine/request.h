// What a caller asks the engine for, and what comes back. Plain data: no llama.cpp types, no
// HTTP, so the API layer, the desk and both backends share them.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "sched/priority.h"

namespace supportd::engine {

using Clock = std::chrono::steady_clock;

using sched::kPriorityCount;
using sched::Priority;

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct SamplingParams {
  float temperature = 0.8f;  // <= 0 means greedy
  float top_p = 0.95f;       // 1 disables
  int top_k = 40;            // <= 0 disables
  float min_p = 0.05f;       // 0 disables
  float repeat_penalty = 1.0f;
  float frequency_penalty = 0.0f;
  float presence_penalty = 0.0f;
  int penalty_last_n = 64;
  std::optional<std::uint32_t> seed;  // unset: a fresh random seed per request
};

// What fault injection (obs/faults, POST /admin/faults) asks the engine to do to one request,
// decided before submit so the engine thread only reads these numbers. Zero: nothing.
struct InjectedFaults {
  std::chrono::milliseconds prefill_delay{0};  // added to every step computing its prompt
  std::chrono::milliseconds decode_delay{0};   // added to every step decoding its next token
  double decode_tokens_per_second = 0;         // its tokens come at most this fast (0: no cap)
  bool any() const {
    return prefill_delay.count() > 0 || decode_delay.count() > 0 || decode_tokens_per_second > 0;
  }
};

struct GenerationRequest {
  std::string id;                     // for logs and traces
  bool chat = false;                  // chat: render `messages` with the model's chat template
  std::vector<ChatMessage> messages;  // when chat
  std::string prompt;                 // when not chat: raw text, tokenized with special tokens
  SamplingParams sampling;
  int max_tokens = -1;  // -1: the server's default
  std::vector<std::string> stop;
  bool ignore_eos = false;  // keep generating past end-of-generation tokens (benchmarks)
  Priority priority = Priority::kNormal;
  // Nobody waits for its answer (a shadow's copy): an engine whose every request is background
  // computes only while no engine of the process has a request in the foreground
  // (engine/llama/compute_gate.h), in steps of a few tokens.
  bool background = false;
  std::string tenant;
  std::optional<Clock::time_point> deadline;  // finish by then or be refused / stopped
  // The start of the answer, already given to the customer (a stream resumed on another engine
  // node, bus/engine_worker.h): generation continues after it as if the engine had produced
  // it. Its tokens count in max_tokens and usage.completion_tokens. Plain text: never parsed
  // for control tokens.
  std::string continuation;
  // A drill's faults for this request (not carried to other cluster nodes).
  InjectedFaults injected;
  // For a router (engine/router): the deployment or the version the caller named ("model");
  // empty: the deployment "default". Other engines ignore it.
  std::string model;
  // For a router: what keeps one conversation on one version under a sticky split (a session
  // id or a user); empty: chosen afresh.
  std::string routing_key;
};

enum class FinishReason {
  kStop,       // end-of-generation token or a stop string
  kLength,     // max_tokens or the context is full
  kCancelled,  // cancel() or shutdown
  kDeadline,   // the request's deadline passed
  kError,      // engine failure; see Completion::error
};
const char* finish_reason_name(FinishReason reason);

struct Usage {
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int cached_tokens = 0;  // prompt tokens whose KV was reused from the prefix cache
};

// Milliseconds from submission; negative when the event did not happen.
struct Timings {
  double queued_ms = 0;        // waiting for admission
  double first_token_ms = -1;  // time to first token
  double total_ms = 0;
};

// What happened to a request inside the engine, stamped by the engine's thread as it happens
// (fixed-size storage: no allocation, no lock), in milliseconds from submission; negative when
// it did not happen. The request's owner turns them into spans when the request ends
// (engine/generation_trace.h); the engine never builds a span.
struct Phases {
  static constexpr int kMaxChunks = 16;  // chunks stamped one by one; later ones join the last
  static constexpr int kMaxPauses = 4;   // preemptions stamped one by one; later ones counted
  struct Chunk {
    float start_ms = 0;
    float end_ms = 0;
    int tokens = 0;  // prompt tokens computed in the chunk
  };
  struct Pause {
    float preempted_ms = 0;
    float resumed_ms = -1;  // negative: never resumed
  };
  double started_ms = -1;  // admitted (a sequence and KV cells): prefill begins
  int reused_tokens = 0;   // prompt tokens whose KV came from the prefix cache, not computed
  int chunk_count = 0;     // every prefill chunk, stamped or not
  std::array<Chunk, kMaxChunks> chunks{};
  int pause_count = 0;  // every preemption, stamped or not
  std::array<Pause, kMaxPauses> pauses{};
  double refused_ms = -1;    // refused while waiting: its deadline could no longer be met
  double cancelled_ms = -1;  // cancel() reached the request

  // --- stamping, by the engine's thread ---
  // A prefill chunk of `tokens` starts (its end is stamped by end_chunk, or by close()).
  void begin_chunk(double ms, int tokens) {
    if (chunk_count < kMaxChunks) {
      chunks[static_cast<std::size_t>(chunk_count)] = {static_cast<float>(ms), -1, tokens};
    } else {
      chunks.back().tokens += tokens;  // joins the last stamped one
    }
    ++chunk_count;
  }
  void end_chunk(double ms) {
    if (chunk_count > 0)
      chunks[static_cast<std::size_t>(last_chunk())].end_ms = static_cast<float>(ms);
  }
  void preempted(double ms) {
    if (pause_count < kMaxPauses)
      pauses[static_cast<std::size_t>(pause_count)] = {static_cast<float>(ms), -1};
    ++pause_count;
  }
  void resumed(double ms) {
    if (pause_count > 0 && pause_count <= kMaxPauses)
      pauses[static_cast<std::size_t>(pause_count - 1)].resumed_ms = static_cast<float>(ms);
  }
  // The request ends at `ms`: a chunk still open ends there.
  void close(double ms) {
    if (chunk_count > 0 && chunks[static_cast<std::size_t>(last_chunk())].end_ms < 0) end_chunk(ms);
  }

 private:
  int last_chunk() const { return std::min(chunk_count, kMaxChunks) - 1; }
};

struct Completion {
  FinishReason reason = FinishReason::kStop;
  Usage usage;
  Timings timings;
  Phases phases;
  Error error;  // why, when reason is kError or kDeadline (with its retry_after_s)
};

// Receives one request's output. Called on the engine's thread, in order, never concurrently
// for one request; implementations must return quickly and never block.
class GenerationSink {
 public:
  virtual ~GenerationSink() = default;
  // A piece of generated text: whole UTF-8 characters, stop strings already removed.
  virtual void on_text(std::string_view text) = 0;
  // The end; called exactly once, after the last on_text.
  virtual void on_done(const Completion& completion) = 0;
  // The name of the model version that serves the request: called by a router
  // (engine/router) on the submitting thread, before any on_text, at most once. Wrappers pass
  // it on; by default ignored.
  virtual void on_version(std::string_view /*version*/) {}
};

}  // namespace supportd::engine
