// The engine thread's state and its step loop (see llama_engine.h). Internal to engine/llama.
// Everything here runs on the engine thread except the Inbox methods.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "core/utf8.h"
#include "engine/llama/llama_engine.h"
#include "engine/llama/sampler.h"
#include "engine/prefix_cache.h"
#include "engine/stop_matcher.h"
#include "llama.h"
#include "sched/admission_queue.h"

namespace supportd::engine::llama {

struct LlamaEngine::Sequence {
  RequestId id = 0;
  GenerationRequest request;
  std::shared_ptr<GenerationSink> sink;
  std::vector<Token> tokens;  // the prompt, then every sampled token
  std::size_t prompt_size = 0;
  int max_new = 0;  // tokens to generate at most
  int cells = 0;    // KV cells reserved for the whole request

  int seq_id = -1;         // llama sequence id while running
  std::size_t n_past = 0;  // tokens whose KV is in the cache
  std::size_t reused = 0;  // prompt tokens taken from the prefix cache
  int batch_index = -1;    // logits row in the current step, -1 when none
  int generated = 0;
  std::unique_ptr<Sampler> sampler;
  Utf8Stream utf8;
  StopMatcher stop{{}};

  Clock::time_point submitted;
  Clock::time_point admitted;
  Clock::time_point first_token;
  bool has_first_token = false;
};

class LlamaEngine::Loop {
 public:
  Loop(LlamaEngine& engine, llama_context* context);
  ~Loop();

  // --- called from any thread ---
  void enqueue(std::unique_ptr<Sequence> sequence);
  void cancel(RequestId id);
  // Runs `task` on the engine thread and waits for it.
  void run_on_engine(const std::function<void()>& task);
  void request_stop();
  EngineStats stats() const;

  // --- the engine thread ---
  void run();
  void warm_up();
  void clear_prefix_cache();
  int sequences_holding_cells() const;

 private:
  // loop.cpp
  void take_inbox(bool wait);
  void start(std::unique_ptr<Sequence> sequence);
  void admit();
  void expire_deadlines();
  void finish(Sequence& sequence, FinishReason reason, Error error = {});
  void release_cells(Sequence& sequence, bool keep_in_cache);
  void erase_finished();
  void publish_stats();
  // step.cpp
  void step();
  bool decode_batch(int n_tokens);
  void on_token(Sequence& sequence, Token token);
  void emit(Sequence& sequence, std::string_view bytes);

  LlamaEngine& engine_;
  const Model& model_;
  llama_context* context_;
  llama_memory_t memory_;
  const EngineOptions& options_;

  // Inbox: guarded by inbox_mutex_.
  mutable std::mutex inbox_mutex_;
  std::condition_variable inbox_cv_;
  std::vector<std::unique_ptr<Sequence>> submitted_;
  std::vector<RequestId> cancelled_;
  std::vector<std::function<void()>> tasks_;
  bool stop_requested_ = false;

  // Engine-thread state.
  sched::AdmissionQueue queue_;
  std::map<RequestId, std::unique_ptr<Sequence>> waiting_;
  std::vector<std::unique_ptr<Sequence>> running_;  // in admission order
  std::vector<int> free_seq_ids_;
  PrefixCache prefix_cache_;
  std::int64_t cells_reserved_ = 0;  // by running sequences
  llama_batch batch_{};
  EngineStats counters_;

  // Published snapshot: guarded by stats_mutex_.
  mutable std::mutex stats_mutex_;
  EngineStats published_;
};

}  // namespace supportd::engine::llama
