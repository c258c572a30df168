// Early refusal, decided on the caller's thread before a request is queued: a bounded queue per
// priority class (429 when full) and deadlines checked against the measured service rate (503
// when a request could not start in time), each with a Retry-After computed from that rate.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>

#include "core/status.h"
#include "sched/priority.h"

namespace supportd::sched {

struct AdmissionOptions {
  std::array<int, kPriorityCount> queue_limit{256, 512,
                                              512};  // waiting requests per class; 0: no bound
};

struct Refusal {
  Error error;                       // kOverloaded (queue full) or kDeadline
  std::chrono::seconds retry_after;  // when trying again is likely to work
};

class AdmissionControl {
 public:
  explicit AdmissionControl(AdmissionOptions options = {});

  // Reserves a queue place for a request of `priority` that must start by `deadline` (if any);
  // on success the caller must later call left_queue(priority) exactly once.
  std::optional<Refusal> enter(Priority priority,
                               std::optional<std::chrono::steady_clock::time_point> deadline);
  void left_queue(Priority priority);

  // Engine-side measurement: a request finished at `when` (feeds the service rate).
  void record_finish(std::chrono::steady_clock::time_point when = std::chrono::steady_clock::now());
  // Whether every sequence slot is busy (a new request must wait for one to finish).
  void set_saturated(bool saturated) { saturated_.store(saturated); }

  // Requests per second the engine completes (recent average), and the expected wait before a
  // request of `priority` starts.
  double completion_rate() const;
  std::chrono::duration<double> expected_wait(Priority priority) const;
  int waiting(Priority priority) const { return waiting_[static_cast<int>(priority)].load(); }

 private:
  std::chrono::seconds retry_after_for(Priority priority) const;

  const AdmissionOptions options_;
  std::array<std::atomic<int>, kPriorityCount> waiting_{};
  std::atomic<bool> saturated_{false};
  mutable std::mutex mutex_;
  double mean_gap_ = 0;  // seconds between completions, exponentially averaged; guarded by mutex_
  double rate_ = 0;      // 1 / mean_gap_; guarded by mutex_
  std::chrono::steady_clock::time_point last_finish_;  // guarded by mutex_
};

}  // namespace supportd::sched
