// The in-process engine: one thread owns the llama.cpp context and runs a continuous-batching
// loop. Every step, a single llama_decode carries the next token of every decoding sequence
// plus prefill chunks of newly started requests under a token budget (chunked prefill), so a
// long prompt never stalls the users who are streaming. KV cells live in one unified cache;
// finished conversations stay in it as prefix-cache entries that later requests reuse.
// The engine thread's loop (loop.h) gets what it uses at construction: the model, the options,
// admission control; the engine sees the loop only through its inbox.
// Thread-safety: the public methods may be called from any thread; everything else runs on
// the engine thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "engine/engine.h"
#include "engine/llama/engine_options.h"
#include "engine/llama/model.h"
#include "sched/admission_control.h"

namespace supportd::engine::llama {

class Loop;

class LlamaEngine final : public Engine {
 public:
  // Loads the model, creates the context, starts the engine thread and warms up.
  // Fails with Error::invalid naming the option when an option is out of its bounds
  // (engine_options.h: validate), or when the KV cache types cannot hold this model's heads;
  // with kInternal when llama.cpp cannot create the context or its threads; or with the
  // model's load error. Nothing keeps running after a failure.
  static Result<std::unique_ptr<LlamaEngine>> create(const EngineOptions& options);
  ~LlamaEngine() override;

  const ModelCard& model() const override;
  Result<RequestId> submit(GenerationRequest request,
                           std::shared_ptr<GenerationSink> sink) override;
  void cancel(RequestId id) override;
  bool ready() const override { return ready_.load(); }
  EngineStats stats() const override;
  void shutdown() override;

  const Model& llama_model() const { return *model_; }
  sched::AdmissionControl& admission() { return admission_; }
  // As created, with create()'s derived values filled in (prefix-cache cells, context cells).
  const EngineOptions& options() const { return options_; }

  // Empties the prefix cache (on the engine thread) and waits until done.
  void clear_prefix_cache();

  // Number of sequence ids, other than prefix-cache entries, that still hold KV cells.
  // Zero whenever no request runs: the check that nothing leaks.
  int sequences_holding_cells();

 private:
  // The tests' deliberate leak (kv_leak_hook.h), defined only in a test library.
  friend bool leak_kv_cells(LlamaEngine& engine);
  explicit LlamaEngine(EngineOptions options);

  // Constant after create().
  EngineOptions options_;
  std::unique_ptr<Model> model_;
  int max_context_ = 0;  // tokens one request may use
  ModelCard model_card_;

  sched::AdmissionControl admission_;  // thread-safe; the loop feeds it, submit() asks it
  std::unique_ptr<Loop> loop_;         // runs on thread_; reached through its inbox
  std::thread thread_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> next_id_{1};
};

}  // namespace supportd::engine::llama
