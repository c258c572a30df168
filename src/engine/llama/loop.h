// The engine thread's state and its step loop (see llama_engine.h). Internal to engine/llama.
// Everything here runs on the engine thread except the Inbox methods (enqueue, cancel,
// run_on_engine, request_stop, stats).
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "core/utf8.h"
#include "engine/llama/llama_engine.h"
#include "engine/llama/sampler.h"
#include "engine/prefix_cache.h"
#include "engine/step_time.h"
#include "engine/stop_matcher.h"
#include "engine/thread_tuner.h"
#include "llama.h"
#include "sched/scheduler.h"

namespace supportd::engine::llama {

// One request inside the engine. Its tokens are the prompt followed by every sampled token;
// the KV of tokens[0, n_past) is in the cache. The last sampled token is decoded in the next
// step, so a sequence always has tokens.size() - n_past >= 1 tokens left to feed: one while
// decoding, more while prefilling (also after a preemption that dropped its cells).
struct LlamaEngine::Sequence {
  RequestId id = 0;
  GenerationRequest request;
  std::shared_ptr<GenerationSink> sink;  // null once finished
  std::vector<Token> tokens;
  std::size_t prompt_size = 0;
  int max_new = 0;  // tokens to generate at most
  int cells = 0;    // KV cells reserved for the whole request

  int seq_id = -1;         // llama sequence id while running
  std::size_t n_past = 0;  // tokens whose KV is in the cache
  std::size_t reused = 0;  // prompt tokens taken from the prefix cache
  std::size_t shared = 0;  // leading positions whose KV cells are the prefix cache's own
  int batch_index = -1;    // logits row in the current step, -1 when none
  int generated = 0;
  int continued = 0;  // tokens of the request's continuation, at the end of the prompt tokens
  std::unique_ptr<Sampler> sampler;
  Utf8Stream utf8;
  StopMatcher stop{{}};

  // Preemption: the KV saved with llama_state_seq_get_data, and how many tokens it covers.
  std::vector<std::uint8_t> saved_state;
  std::size_t saved_n_past = 0;
  int preemptions = 0;
  bool counted_waiting = false;  // holds a place in AdmissionControl's queue count

  Clock::time_point submitted;
  Clock::time_point admitted;  // first admission
  Clock::time_point first_token;
  bool has_first_token = false;

  std::size_t remaining() const { return tokens.size() - n_past; }
};

class LlamaEngine::Loop {
 public:
  // `threadpool` (owned from now on) has `pool_threads` workers.
  Loop(LlamaEngine& engine, llama_context* context, ggml_threadpool* threadpool, int pool_threads);
  ~Loop();

  // --- any thread ---
  void enqueue(std::unique_ptr<Sequence> sequence);
  void cancel(RequestId id);
  void run_on_engine(const std::function<void()>& task);  // runs `task` there and waits
  void request_stop();
  EngineStats stats() const;

  // --- the engine thread ---
  void run();
  void warm_up();
  void clear_prefix_cache();
  int sequences_holding_cells() const;

 private:
  // loop.cpp: the loop, the inbox, finishing
  void take_inbox(bool wait);
  void expire_deadlines();
  void refuse_unreachable_deadlines();
  // Tells admission control the free slots, the step time, the predicted rate and when the
  // running sequences finish (predict_completions).
  void publish_admission();
  void predict_completions();
  // Engine steps for `prompt_tokens` in chunks and `answer_tokens` (at least one) decoded.
  double steps(std::size_t prompt_tokens, int answer_tokens) const;
  // Engine steps a sequence still needs: its prompt chunks and answer tokens left.
  double steps_left(const Sequence& sequence) const;
  // Ends a waiting request with a deadline refusal (503 with Retry-After); returns the next.
  using Waiting = std::map<RequestId, std::unique_ptr<Sequence>>;
  Waiting::iterator refuse_waiting(Waiting::iterator it, std::string message);
  void finish(Sequence& sequence, FinishReason reason, Error error = {});
  void leave_queue(Sequence& sequence);
  void erase_finished();
  void publish_stats();
  // admission.cpp: starting, preempting and resuming sequences
  void admit();
  // Higher classes start first, but a request accepted with a deadline was promised a start by
  // then: when the last free slot is a waiting request's last chance (the next slot frees after
  // its deadline) and `candidate` can wait for that next slot within its own deadline, the
  // promised request's ticket is returned instead of `candidate`'s. A candidate resuming its
  // stream may wait too; one with neither a deadline nor a stream never waits for a promise.
  sched::Ticket keep_promise(const sched::Ticket& candidate, Clock::time_point now) const;
  // A waiting request whose deadline falls before the next admission starts now: in a free
  // slot the scheduler gave no one, or in the slot of a running stream that pauses for it
  // (may_pause_for_promise). Only with preemption on, in continuous batching.
  void start_due_promises(Clock::time_point now);
  bool promises_kept_by_pausing() const;
  static bool may_pause_for_promise(const Sequence& sequence, Priority promised);
  static constexpr std::chrono::milliseconds kPromiseJitter{25};
  // With pausing on: a free slot, or a running stream that may pause for it.
  bool can_keep_promise(const Sequence& promised) const;
  // The running request to pause among those `eligible` allows: the lowest class, then the
  // latest admitted (the least work lost). Null when there is none.
  Sequence* stream_to_pause(const std::function<bool(const Sequence&)>& eligible) const;
  bool make_room(const sched::Ticket& candidate);
  void start(std::unique_ptr<Sequence> sequence);
  void preempt(Sequence& sequence);
  void release_cells(Sequence& sequence, bool keep_in_cache);
  void cache_prefix(Sequence& sequence, std::size_t length);
  void share_cached_cells(Sequence& sequence, std::size_t length);
  // Before a prefill chunk: takes the longest computed prefix of the sequence's tokens that the
  // prefix cache or another running sequence holds. Returns true when a sequence ahead of it
  // in admission order is still computing a longer shared prefix: wait for it, not compute it
  // twice (a burst of conversations with one system prompt computes that prompt once).
  bool join_prefill(Sequence& sequence);
  // Tokens a sequence ahead must still compute before joining it beats computing them too.
  static constexpr std::size_t kMinJoinTokens = 32;
  std::int64_t free_cells() const;
  // Evicts prefix-cache entries until `wanted` cells are free (or the cache is empty).
  void evict_cached_prefixes(std::int64_t wanted);
  // Makes positions [0, end) of sequence `to` (which holds nothing) the KV of `from`'s.
  // Unified layout: the cells become shared (unified_), nothing is copied; per sequence:
  // `from`'s cells are copied into `to`'s buffer, then trimmed to [0, end). Returns false
  // when the copy failed; `to` then holds nothing.
  bool copy_prefix(int from, int to, std::size_t end);
  // step.cpp: one step's llama_decode calls and what follows
  struct Planned {
    Sequence* sequence;
    int tokens;  // fed in this step
  };
  // Rows of a query tile in ggml's CPU flash attention (GGML_FA_TILE_Q): from this many tokens
  // in one call, it uses the tiled kernel.
  static constexpr int kAttentionTileRows = 64;
  // Decode tokens from which a step with prompt chunks is split (see step()).
  static constexpr int kSplitDecodeTokens = 8;
  void step();
  // The leading tokens every sequence of `planned` holds alike once this step is computed
  // (0 below kMinSharedPrefix, with one buffer, or with shared_prefix_attention off): llama.cpp
  // is told (llama_set_shared_prefix) and reads their keys and values once for all of them.
  std::size_t shared_prefix(std::span<const Planned> planned) const;
  static constexpr std::size_t kMinSharedPrefix = 64;
  static constexpr std::size_t kSharedPrefixAlign = 32;
  // Decodes batch_[first, end) (the tokens of `planned`), advances and samples them.
  bool run_batch(int first, int end, std::span<const Planned> planned, int threads);
  bool decode_batch(const llama_batch& batch);
  void on_token(Sequence& sequence, Token token);

  LlamaEngine& engine_;
  const Model& model_;
  llama_context* context_;
  llama_memory_t memory_;
  const EngineOptions& options_;
  const bool unified_;  // options_.kv_layout == kUnified

  // Inbox: guarded by inbox_mutex_.
  mutable std::mutex inbox_mutex_;
  std::condition_variable inbox_cv_;
  std::vector<std::unique_ptr<Sequence>> submitted_;
  std::vector<RequestId> cancelled_;
  std::vector<std::function<void()>> tasks_;
  bool stop_requested_ = false;

  // Engine-thread state.
  sched::Scheduler scheduler_;
  Waiting waiting_;
  std::vector<std::unique_ptr<Sequence>> running_;  // in admission order
  std::vector<int> free_seq_ids_;
  std::vector<std::uint8_t> copy_buffer_;  // copy_prefix's, kept: fresh memory faults slowly
  PrefixCache prefix_cache_;
  std::int64_t cells_reserved_ = 0;  // by running sequences
  llama_batch batch_{};
  EngineStats counters_;
  ggml_threadpool* threadpool_;  // owned; attached to context_
  ThreadTuner tuner_;
  int threads_ = 0;                // threads the context is set to use now
  std::size_t shared_prefix_ = 0;  // what llama_set_shared_prefix was last told
  StepTimeModel step_time_;        // step times, by tokens and on average, for admission control
  // Seconds from one admission to the next around a step (its overhead included), the slowest
  // recently: each iteration forgets a little of it.
  double slowest_iteration_ = 0;
  int last_step_tokens_ = 0;          // what the last step() fed llama_decode
  Clock::time_point last_admission_;  // when admit() last ran
  static constexpr double kSlowestIterationDecay = 0.95;
  // An iteration this much longer than its step's tokens predict is logged at debug level.
  static constexpr std::chrono::milliseconds kSlowIterationLog{50};

  // Published snapshot: guarded by stats_mutex_.
  mutable std::mutex stats_mutex_;
  EngineStats published_;
};

}  // namespace supportd::engine::llama
