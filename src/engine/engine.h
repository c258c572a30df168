// The seam between the server and whatever produces tokens: the llama.cpp engine in-process
// (engine/llama/) or an OpenAI-compatible upstream over HTTP (engine/upstream/).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "engine/iteration_cost.h"
#include "engine/request.h"

namespace supportd::engine {

// What /v1/models shows about the served model.
struct ModelCard {
  std::string id;           // the name clients put in "model"
  std::string description;  // architecture, size, quantization; says so when text is meaningless
  int context_length = 0;   // tokens one request may use (prompt + output)
  bool meaningless_text = false;  // random weights (synthesized): never show its text to customers
  std::string owned_by = "supportd";
  // The version's file, when a router (engine/router) knows it: SHA-256, size, architecture,
  // quantization and the chat template's SHA-256; empty / 0 otherwise.
  std::string sha256;
  std::int64_t bytes = 0;
  std::string architecture;
  std::string quantization;
  std::string chat_template_sha256;
  std::string state;  // a router's version: loading, warming, ready, draining or failed
};

struct EngineStats {
  int running = 0;  // sequences prefilling or decoding
  int waiting = 0;  // admitted to the queue, not yet running
  int waiting_by_priority[kPriorityCount] = {0, 0, 0};
  std::int64_t kv_cells_used = 0;
  std::int64_t kv_cells_total = 0;
  // KV positions held by sequences no request and no prefix-cache entry owns (a leak: nothing
  // will free them); audited as the stats are published. Always 0 for engines without a cache.
  std::int64_t kv_cells_leaked = 0;
  int kv_sequences_leaking = 0;          // sequence ids holding such cells
  std::int64_t prefix_cache_tokens = 0;  // KV cells held by the prefix cache
  std::int64_t prefix_lookups = 0;
  std::int64_t prefix_hits = 0;
  std::int64_t prompt_tokens_reused = 0;
  std::int64_t prefix_copies_merged = 0;  // own copies of a cached prefix swapped for the cache's
  std::int64_t prefill_joins = 0;  // prompts that took a prefix another running request computed
  std::int64_t steps = 0;          // llama_decode calls
  std::int64_t step_tokens = 0;    // tokens carried by all those calls
  std::int64_t mixed_steps = 0;    // steps that held decode tokens and prompt chunks together
  std::int64_t split_steps = 0;    // of those, steps that decoded the chunks in a call of their own
  std::int64_t shared_prefix_steps = 0;   // steps whose sequences all began alike (cascade)
  std::int64_t shared_prefix_tokens = 0;  // the length of that beginning, summed over them
  std::int64_t tokens_generated = 0;
  std::int64_t preemptions = 0;              // running sequences paused for higher-priority ones
  std::int64_t preemption_saved_bytes = 0;   // KV copied to memory by those pauses (kSave)
  std::int64_t preemption_saved_tokens = 0;  // the tokens whose KV those bytes hold
  double last_step_ms = 0;
  double busy_seconds = 0;  // spent computing (in llama_decode): its rate is the utilization
  int threads = 0;          // compute threads the last step used
  int slots = 0;            // sequences that can run at once (0: not known, e.g. upstream)
  // What an iteration costs and a request asks (iteration_cost.h; empty for an engine that
  // does not compute here, e.g. upstream). A router gives its busiest version's.
  IterationCost cost;
};

class Engine {
 public:
  using RequestId = std::uint64_t;

  virtual ~Engine() = default;

  virtual const ModelCard& model() const = 0;

  // Whether a request may name `name` in its "model" field: nothing, "default" or model().id
  // here; a router's deployments and versions too.
  virtual bool knows_model(std::string_view name) const {
    return name.empty() || name == "default" || name == model().id;
  }
  // What /v1/models lists: model() here; a router's deployments and versions.
  virtual std::vector<ModelCard> models() const { return {model()}; }

  // For a router (engine/router): the version a request naming `model` (empty: "default")
  // with `routing_key` (GenerationRequest::routing_key) is given now, found without submitting
  // anything, so that work done without the model (the desk's FAQ answers) counts for the
  // version arm its conversation is on. Empty here (one model, no versions), and for a name
  // that is neither a deployment nor a version.
  virtual std::string version_for(std::string_view /*model*/,
                                  std::string_view /*routing_key*/) const {
    return {};
  }

  // Validates and queues `request`. On error nothing was queued and `sink` is never called.
  // On success `sink->on_done` is called exactly once, later, on the engine's thread.
  virtual Result<RequestId> submit(GenerationRequest request,
                                   std::shared_ptr<GenerationSink> sink) = 0;

  // Asks the request to stop; it leaves the engine (KV freed) within one engine step and its
  // sink sees on_done(kCancelled) unless it had already finished. Unknown ids are ignored.
  virtual void cancel(RequestId id) = 0;

  // True once the model is loaded and warmed up; false again while shutting down.
  virtual bool ready() const = 0;

  virtual EngineStats stats() const = 0;

  // Cancels everything still running or queued and stops the engine's thread. Idempotent.
  virtual void shutdown() = 0;
};

}  // namespace supportd::engine
