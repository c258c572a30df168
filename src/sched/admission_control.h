// Early refusal, decided on the caller's thread before a request is queued: a bounded queue per
// priority class (429 when full) and deadlines checked against the measured service rate (503
// when a request could not start in time), each with a Retry-After computed from that rate.
// The engine feeds it two kinds of facts: events (a request finished, the engine woke up) and
// its outlook (sched/outlook.h: free slots, step time, slot releases...), published whole.
//
//   engine thread ── record_finish, engine_busy ──> completions rate ─┐   under one mutex;
//                ── publish(EngineOutlook) ───────> outlook ──────────┤─> each estimate reads
//   callers ───────── enter (arrivals, offered) ───> arrival rates ───┘   them all in one lock
//
// Thread-safety: all methods may be called from any thread; every estimate reads one
// consistent state (the rates and the last outlook published, under one lock).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <vector>

#include "core/status.h"
#include "sched/outlook.h"
#include "sched/priority.h"

namespace supportd::sched {

// Bounds (checked by validate): every queue limit and the aging >= 0.
struct AdmissionOptions {
  // Waiting requests per class (high, normal, low); 0: no bound.
  std::array<int, kPriorityCount> queue_limit{256, 512, 512};
  // The scheduler's aging: waiting this long moves a request up one class, so the classes
  // above it overtake it only until it reaches them. 0: classes never age.
  std::chrono::milliseconds aging{0};
};

// Ok when `options` is within the bounds above; else Error::invalid naming the first option
// out of range (e.g. "admission.queue_limit[normal]").
Status validate(const AdmissionOptions& options);

struct Refusal {
  Error error;                       // kOverloaded (queue full) or kDeadline
  std::chrono::seconds retry_after;  // when trying again is likely to work
};

class AdmissionControl {
 public:
  // The options are constant after construction.
  explicit AdmissionControl(AdmissionOptions options = {});

  // Reserves a queue place for a request of `priority` that must start by `deadline` (if any).
  // On success (nullopt) the caller must later call left_queue(priority) exactly once; on a
  // refusal nothing was reserved.
  std::optional<Refusal> enter(Priority priority,
                               std::optional<std::chrono::steady_clock::time_point> deadline);
  void left_queue(Priority priority);

  // Engine-side measurement: a request finished at `when` (feeds the service rate).
  void record_finish(std::chrono::steady_clock::time_point when = std::chrono::steady_clock::now());
  // The engine started a request with nothing running: the gap to the next completion counts
  // from `when` (an idle engine completes nothing; its idle time says nothing of its rate).
  void engine_busy(std::chrono::steady_clock::time_point when = std::chrono::steady_clock::now());
  // Engine-side outlook (sched/outlook.h), replacing the last one whole: readers see either it
  // or the last, never a mix. Negative times and rates count as 0. A request arriving during a
  // step waits for it to end (step_end) before it can start, produces its first token a step
  // later, and higher classes arriving until then may take a free slot first. Copies into
  // storage kept from the last outlook: no allocation once the releases have been this many.
  void publish(const EngineOutlook& outlook);

  // Requests per second the engine completes (recent average; the outlook's predicted rate
  // until completions are measured), and the spread of the gaps between completions (standard
  // deviation / mean).
  double completion_rate() const;
  double completion_spread() const;
  // Requests per second of `priority` accepted into the queue (recent average).
  double arrival_rate(Priority priority) const;
  // How long a request of `priority` that has waited `waited` already may wait before it starts
  // when `ahead` requests will start before it: ahead + 1 completions at the completion rate
  // less what higher classes arriving meanwhile take (they overtake it until aging lifts it to
  // their class), plus two standard deviations of that many gaps (the gaps are bursty: a batch
  // finishes together, then nothing for a while), so that a request accepted against it rarely
  // misses its deadline in the queue; plus the step that produces its first token. Zero while
  // the rate is unknown.
  std::chrono::duration<double> expected_wait(
      Priority priority, int ahead,
      std::chrono::duration<double> waited = std::chrono::duration<double>(0)) const;
  // The same for a request that has just entered the queue, from now: the rest of the running
  // step, then the first token's step when a free slot is left for it (everyone else waiting
  // in its class or above takes one first) and higher classes arriving before the next step
  // (Poisson at their rate) are unlikely (2%) to take it; else as above, with as many ahead
  // as those arrivals are expected to outnumber the slots left, and never shorter than the
  // slot releases say (wait_for_slot).
  std::chrono::duration<double> expected_wait(Priority priority) const;
  // The wait from `now` before a request of `priority` with `ahead` requests before it
  // produces its first token, by the slot releases: the (ahead+1)-th slot to free, each slot
  // serving its running sequence and then one of the mean service time after another, with
  // the higher classes arriving meanwhile going first (until aging lifts a request that has
  // waited `waited` already to their class); plus the step of its first token. Unlike the
  // rate, it knows how far the running sequences are: after a wait, the next release is
  // nearer. Nullopt when no releases are known.
  std::optional<std::chrono::duration<double>> wait_for_slot(
      Priority priority, int ahead, std::chrono::steady_clock::time_point now,
      std::chrono::duration<double> waited = std::chrono::duration<double>(0)) const;
  // The wait of a request already queued, as the engine re-checks it: wait_for_slot when
  // releases are known, else expected_wait(priority, ahead, waited), from one state.
  std::chrono::duration<double> wait_to_start(Priority priority, int ahead,
                                              std::chrono::steady_clock::time_point now,
                                              std::chrono::duration<double> waited) const;
  // When trying again is likely to work for a refused request of `priority`: its
  // expected_wait, rounded up, between 1 and 60 seconds.
  std::chrono::seconds retry_after(Priority priority) const;
  int waiting(Priority priority) const { return waiting_[static_cast<int>(priority)].load(); }

 private:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Seconds = std::chrono::duration<double>;

  // An exponentially averaged gap between events, and the rate it implies.
  struct Rate {
    double mean_gap = 0;      // seconds
    double gap_variance = 0;  // seconds squared
    int gaps = 0;             // gaps seen, up to the 16 averaged over
    TimePoint last;
    void record(TimePoint when);
    // Events per second; a silence longer than the mean gap lowers it (down to `floor` times
    // the average rate).
    double per_second(TimePoint now, double floor) const;
  };

  // The estimates, each over the state as it is: REQUIRES: mutex_ is held.
  double completion_rate_locked() const;
  double completion_spread_locked() const;
  Seconds expected_wait_locked(Priority priority, int ahead, Seconds waited) const;
  Seconds arrival_wait_locked(Priority priority) const;
  std::optional<Seconds> wait_for_slot_locked(Priority priority, int ahead, TimePoint now,
                                              Seconds waited) const;
  double rest_of_step_locked(TimePoint now) const;  // seconds, >= 0
  // Events per second of the classes above `priority`, from `rates` (arrivals_ or offered_).
  // Classes with fewer than `min_gaps` gaps measured count as not arriving.
  // REQUIRES: mutex_ is held.
  double higher_rate_locked(Priority priority, const std::array<Rate, kPriorityCount>& rates,
                            int min_gaps) const;
  // A wait split where aging lifts a request of `priority` that has waited `waited` already
  // one class up: each stretch's length (the last one endless) and the rate at which higher
  // classes, by the accepted arrivals, overtake it meanwhile. REQUIRES: mutex_ is held.
  struct Stretch {
    double seconds;
    double overtaking;  // requests per second
  };
  std::vector<Stretch> stretches_locked(Priority priority, double waited, int min_gaps) const;
  // Requests overtaking within the first `seconds` of the stretches.
  static double overtakers(const std::vector<Stretch>& stretches, double seconds);
  // Gaps a class's arrival rate needs before wait_for_slot counts its overtakers: from one or
  // two gaps (two high requests a millisecond apart on a fresh server), the rate says thousands
  // a second, and a deadline the releases allow looked out of reach.
  static constexpr int kSettledGaps = 4;
  // Slots wait_for_slot looks ahead at most: past them, the wait refuses any sensible deadline.
  static constexpr int kSlotHorizon = 1024;

  // Constant after construction.
  const AdmissionOptions options_;
  // Queue places per class, counted without the mutex (enter and left_queue).
  std::array<std::atomic<int>, kPriorityCount> waiting_{};

  // State below is guarded by mutex_.
  mutable std::mutex mutex_;
  Rate completions_;
  EngineOutlook outlook_;                      // the last published; releases sorted
  std::array<Rate, kPriorityCount> arrivals_;  // accepted requests per class
  std::array<Rate, kPriorityCount> offered_;   // every request per class
};

}  // namespace supportd::sched
