// The engine thread's state and its step loop (see llama_engine.h). Internal to engine/llama.
// The loop keeps the KV cache and llama.cpp's mechanics (starting, pausing and resuming
// sequences, the prefix cache, the steps) and asks sched/ every scheduling question: which
// request starts (sched::Scheduler), which stream pauses (sched/preemption.h), whose promise
// comes first (sched/promises.h), which deadlines are refused (sched/deadlines.h) and what it
// tells admission control (sched/outlook.h). It shows them views of its requests
// (Sequence::view), rebuilt into vectors it keeps, so asking allocates nothing per step.
// Thread-safety: everything runs on the engine thread except the inbox methods (enqueue,
// cancel, run_on_engine, request_stop) and stats(), which any thread may call.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "engine/iteration_cost.h"
#include "engine/llama/engine_options.h"
#include "engine/llama/model.h"
#include "engine/llama/sequence.h"
#include "engine/prefix_cache.h"
#include "engine/step_time.h"
#include "engine/thread_tuner.h"
#include "llama.h"
#include "sched/admission_control.h"
#include "sched/deadlines.h"
#include "sched/outlook.h"
#include "sched/promises.h"
#include "sched/request_view.h"
#include "sched/scheduler.h"

namespace supportd::engine::llama {

// What a loop works with. The references are the engine's and outlive the loop.
struct LoopSetup {
  const Model& model;
  const EngineOptions& options;  // with create()'s derived values
  int max_context = 0;           // tokens one request may use
  sched::AdmissionControl& admission;
  llama_context* context = nullptr;       // owned by the loop from now on
  ggml_threadpool* threadpool = nullptr;  // owned by the loop from now on; attached to context
  int pool_threads = 0;                   // the threadpool's workers
};

class Loop {
 public:
  explicit Loop(const LoopSetup& setup);
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  // --- any thread ---
  void enqueue(std::unique_ptr<Sequence> sequence);
  void cancel(RequestId id);
  // Runs `task` on the engine thread and waits; returns at once, without running it, once a
  // stop was requested.
  void run_on_engine(const std::function<void()>& task);
  void request_stop();
  EngineStats stats() const;

  // --- the engine thread ---
  // Runs until request_stop(); then cancels everything still queued or running.
  void run();
  void warm_up();
  void clear_prefix_cache();
  int sequences_holding_cells() const;
  // kv_audit.cpp: KV cells held by sequence ids that no running request and no prefix-cache
  // entry owns, or past the positions their owner has computed: cells no one will free.
  KvAudit audit_kv() const;
  // kv_leak_hook.cpp, linked into tests only (never into supportd): leaks the cells of a
  // prefix-cache entry into a sequence id taken out of use. False when the cache is empty.
  bool leak_kv_cells_for_test();

 private:
  using Waiting = std::map<RequestId, std::unique_ptr<Sequence>>;

  // loop.cpp: the loop, the inbox, finishing
  void take_inbox(bool wait);
  void finish(Sequence& sequence, FinishReason reason, Error error = {});
  void leave_queue(Sequence& sequence);
  void erase_finished();
  void publish_stats();
  // Whether every request here, running or waiting, is background (GenerationRequest::
  // background); false when there is none.
  bool only_background() const;
  // How long a background-only engine waits for a gap before it looks at its inbox again
  // (a request entering the foreground anywhere ends the wait sooner).
  static constexpr std::chrono::milliseconds kGapWait{50};

  // deadlines.cpp: what the loop shows sched/, and the deadlines it refuses
  // Views of the running requests (in admission order, so running_views_[i] is running_[i]'s)
  // and of the waiting ones (in id order), rebuilt on each call into kept vectors; a span is
  // valid until the next call of the same method.
  std::span<const sched::RequestView> view_running();
  std::span<const sched::RequestView> view_waiting();
  // The running sequence a view of view_running() shows. REQUIRES: running_ has not changed
  // since that call.
  Sequence& running_at(const sched::RequestView& view);
  sched::Pace pace() const;
  int free_slots() const { return static_cast<int>(free_seq_ids_.size()); }
  void expire_deadlines();
  void refuse_unreachable_deadlines();
  // Ends a waiting request with a deadline refusal (503 with Retry-After) and erases it.
  void refuse_waiting(Waiting::iterator it, std::string message);
  // Brings the outlook up to date (sched::forecast) and publishes it to admission control.
  void publish_outlook();

  // admission.cpp: starting, preempting and resuming sequences
  void admit();
  // The id of the request to start in a free slot instead of `candidate`, the scheduler's
  // pick: itself, or a promised request whose last chance it is (sched::keep_promise).
  RequestId keep_promise(RequestId candidate, Clock::time_point now);
  // Starts the waiting requests whose promise falls due before the next admission
  // (sched::due_promises), in a free slot or in that of a stream that pauses for it.
  void start_due_promises(Clock::time_point now);
  // Frees a sequence id and `cells` KV cells for a request of class `candidate`: the prefix
  // cache's cells first, then by pausing the streams sched::stream_to_pause names. False when
  // that is not enough (a stream paused on the way stays paused: it waits in its class).
  bool make_room(Priority candidate, int cells);
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
  // A request that reuses this many cached or shared tokens or more proves them in the prefix
  // cache's entry it took them from, and in the entry its own tokens become (prefix_cache.h:
  // probation).
  static constexpr std::size_t kProvingReuse = 16;
  // Prefix-cache entries on probation (at most --parallel). Four, not --parallel: with a
  // 500-word system prompt shared by 16 streams (--parallel 16), 4 tails kept beside it
  // against 16: 1.18x completions/s (three rounds, docs/performance.md), and 1, 2 or 4 alike;
  // prompts sharing nothing at --parallel 4: 1 no better than 4.
  static constexpr int kProbationEntries = 4;
  std::int64_t free_cells() const;
  // Evicts prefix-cache entries until `wanted` cells are free (or the cache is empty).
  void evict_cached_prefixes(std::int64_t wanted);
  // Removes the KV of the prefix-cache entries `ids` (evicted or cleared from the trie: every
  // path that drops entries comes here) and of the tails `trims` cut from entries, and counts
  // the cells running sequences shared with them as their own again.
  void drop_cached_prefixes(const std::vector<int>& ids,
                            const std::vector<PrefixCache::Trim>& trims = {});
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
  // The token budget of a background step (only background requests): a caller arriving
  // during it waits for it, so it is kept to a few decode tokens' time.
  static constexpr int kBackgroundStepTokens = 32;
  void step(bool background);
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

  // Constant after construction.
  const Model& model_;
  const EngineOptions& options_;
  const int max_context_;
  sched::AdmissionControl& admission_;  // thread-safe
  llama_context* context_;
  llama_memory_t memory_;
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
  const sched::PromiseRules promise_rules_;
  sched::DeadlineCheck deadline_check_;
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
  IterationCostModel cost_;        // iterations' and requests' costs, for capacity plans
  // Seconds from one admission to the next around a step (its overhead included), the slowest
  // recently: each iteration forgets a little of it.
  double slowest_iteration_ = 0;
  int last_step_tokens_ = 0;              // what the last step() fed llama_decode
  int last_decode_tokens_ = 0;            // of those, decode tokens
  std::int64_t last_decode_context_ = 0;  // the cells the decode tokens' sequences had computed
  bool last_step_split_ = false;          // in two llama_decode calls (decode tokens, then chunks)
  bool last_step_costed_ = false;         // the last step computed for callers: cost_ counts it
  Clock::time_point last_admission_;      // when admit() last ran
  static constexpr double kSlowestIterationDecay = 0.95;
  // An iteration this much longer than its step's tokens predict is logged at debug level.
  static constexpr std::chrono::milliseconds kSlowIterationLog{50};
  // What sched/ is asked about and answers, in vectors kept between steps.
  std::vector<sched::RequestView> running_views_;
  std::vector<sched::RequestView> waiting_views_;
  std::vector<RequestId> expired_;              // expire_deadlines's answer
  std::vector<const sched::RequestView*> due_;  // start_due_promises's answer
  sched::EngineOutlook outlook_;                // as last published to admission_

  // Published snapshot: guarded by stats_mutex_.
  mutable std::mutex stats_mutex_;
  EngineStats published_;
};

}  // namespace supportd::engine::llama
