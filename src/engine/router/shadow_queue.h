// Shadow traffic (a deployment's split with a shadow, split.h): copies of production requests
// run on another model version at the lowest priority class, from a capped queue of their own
// drained by one thread; nobody ever sees their answers. Each copy's latency, and how far its
// answer agrees with the answer production gave (agreement.h), are recorded in the shadow
// version's ShadowFigures. The caller never waits for a copy: offering one takes a mutex held
// for a push, never a call into an engine; a full queue drops the copy and counts it. A copy
// that fails, is refused or is slow touches only its own figures. A copy computes only in the
// callers' gaps (GenerationRequest::background), so under a load without gaps it could wait
// for ever: one not ended `max_age` after it was offered expires (not started when waiting,
// cancelled when running; counted), giving its place back and keeping the comparisons recent.
//
// Thread-safety: every method may be called from any thread; copies end on their engine's
// thread, which only counts and compares (no wait on anything but a short mutex).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "obs/metrics.h"

namespace supportd::engine::router {

struct ShadowLimits {
  std::size_t capacity = 16;  // copies waiting to start; one more is dropped (and counted)
  int concurrency = 2;        // copies running on shadow engines at once
  // A copy not ended this long after it was offered expires (and is counted).
  std::chrono::milliseconds max_age{60000};
};

// What the copies sent to one version add up to; shared with the sinks of its copies.
struct ShadowFigures {
  std::atomic<std::int64_t> copies{0};     // accepted into the queue
  std::atomic<std::int64_t> dropped{0};    // refused: the queue was full
  std::atomic<std::int64_t> expired{0};    // not ended within ShadowLimits::max_age
  std::atomic<std::int64_t> errors{0};     // not submitted, refused, or ended in an error
  std::atomic<std::int64_t> completed{0};  // ended with an answer (a stop or the length)
  std::atomic<std::int64_t> compared{0};   // completed, and production's answer completed too
  std::atomic<std::int64_t> exact{0};      // of those compared, the same text
  std::atomic<std::int64_t> overlap_millionths{0};  // their word overlaps summed, x 1e6
  obs::Histogram ttft_ms{obs::exponential_buckets(1, 1.5, 32)};
  obs::Histogram e2e_ms{obs::exponential_buckets(1, 1.5, 32)};
};

// ShadowFigures read once, as GET /admin/models and /metrics show them.
struct ShadowSummary {
  std::int64_t copies = 0;
  std::int64_t dropped = 0;
  std::int64_t expired = 0;
  std::int64_t errors = 0;
  std::int64_t completed = 0;
  std::int64_t compared = 0;
  double exact_match_rate = 0;  // exact / compared (0 before any comparison)
  double token_overlap = 0;     // the mean word overlap of those compared
  double ttft_p50_ms = 0;
  double ttft_p99_ms = 0;
  double e2e_p50_ms = 0;
  double e2e_p99_ms = 0;
};
ShadowSummary summarize(const ShadowFigures& figures);

// Whether a request that ended so gave an answer to compare (a stop or the length).
inline bool is_answer(FinishReason reason) {
  return reason == FinishReason::kStop || reason == FinishReason::kLength;
}

// The two answers of one shadowed request, compared once both have ended (whichever ends
// last compares, on its engine's thread). Thread-safety: each side ends once, from any thread.
class AnswerPair {
 public:
  explicit AnswerPair(std::shared_ptr<ShadowFigures> figures) : figures_(std::move(figures)) {}
  // A side's end: its whole text, and whether it ended with an answer (stop or length).
  void production_ended(std::string text, bool complete) { end(0, std::move(text), complete); }
  void shadow_ended(std::string text, bool complete) { end(1, std::move(text), complete); }

 private:
  void end(int side, std::string text, bool complete);

  const std::shared_ptr<ShadowFigures> figures_;
  std::mutex mutex_;
  std::string texts_[2];               // guarded by mutex_: production's, the shadow's
  bool complete_[2] = {false, false};  // guarded by mutex_
  int ended_ = 0;                      // guarded by mutex_
};

// One copy waiting to run.
struct ShadowCopy {
  GenerationRequest request;       // already in the low class, without a deadline
  Clock::time_point offered;       // set by ShadowQueue::offer; the copy's age counts from it
  std::shared_ptr<Engine> engine;  // the shadow version's (keeping the version alive)
  std::shared_ptr<ShadowFigures> figures;
  std::shared_ptr<AnswerPair> pair;
};

class ShadowQueue {
 public:
  // Called on the queue's thread before each copy is submitted (a drill's faults, e.g. the
  // decode delays armed for the class "low"); false refuses the copy (counted an error).
  using Prepare = std::function<bool(GenerationRequest&)>;

  ShadowQueue();
  ~ShadowQueue();  // stop()
  ShadowQueue(const ShadowQueue&) = delete;
  ShadowQueue& operator=(const ShadowQueue&) = delete;

  // Sets the bounds and the hook (taking effect for the next copies).
  void configure(ShadowLimits limits, Prepare prepare);
  ShadowLimits limits() const;

  // Queues `copy` (counted in copy.figures->copies), or, when `capacity` copies wait already or
  // the queue is stopped, drops it (counted in dropped) and returns false. Never blocks on an
  // engine.
  bool offer(ShadowCopy copy);

  // Drops the copies still waiting and stops the thread; copies running end with their
  // engines (shut down by their owner). Idempotent.
  void stop();

  std::size_t waiting() const;
  int running() const;

 private:
  // A copy submitted to its engine and not ended yet (its id is 0 until submit returns).
  struct Running {
    std::uint64_t ticket = 0;
    Clock::time_point offered;
    std::weak_ptr<Engine> engine;  // weak: the last reference must not go on an engine's thread
    Engine::RequestId id = 0;
    std::function<void()> expire;  // marks the copy's sink: its cancel counts as expired
    bool cancelled = false;        // expired already, its cancel sent
  };
  // Shared with the sinks of running copies, which may end after the queue is gone.
  struct State {
    std::mutex mutex;
    std::condition_variable_any wake;
    std::atomic<int> running{0};
    std::vector<Running> copies;  // guarded by mutex: the running copies
    std::uint64_t tickets = 0;    // guarded by mutex
  };

  void run(std::stop_token stop);
  void start(ShadowCopy copy, const Prepare& prepare);
  // Under state_->mutex: takes the waiting copies past `max_age` (into `expired`, counted) and
  // marks the running ones, returning what to cancel once the mutex is released.
  std::vector<Running> take_expired(Clock::time_point now, std::deque<ShadowCopy>& expired);

  const std::shared_ptr<State> state_ = std::make_shared<State>();
  std::deque<ShadowCopy> waiting_;  // guarded by state_->mutex
  ShadowLimits limits_;             // guarded by state_->mutex
  Prepare prepare_;                 // guarded by state_->mutex
  bool stopped_ = false;            // guarded by state_->mutex
  std::jthread thread_;             // last: started once the rest is built
};

}  // namespace supportd::engine::router
