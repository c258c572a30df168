// Deadlines of waiting requests, re-checked by the engine every iteration: those that passed
// (expired_deadlines) and those that can no longer be met (DeadlineCheck::unreachable), so that
// a request that will miss its deadline is refused as early as that is known, and one whose
// promise can still be kept is not refused at all. Pure policy over views
// (sched/request_view.h) and admission control's estimates; the engine does the refusing.
// Thread-safety: expired_deadlines is a pure function; a DeadlineCheck is not thread-safe
// (owned by the engine thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "sched/admission_control.h"
#include "sched/promises.h"
#include "sched/request_view.h"

namespace supportd::sched {

// A deadline is the latest time a request may start; one still waiting then is refused,
// unless the loop itself was late: a deadline that passed since the `last_admission`, which did
// not find it due (due_promises), passed during a step that overran its window (a loaded
// machine stalls a step many times over); if the promise can still be kept (can_keep_promise),
// it is kept now: a start one step late beats a refusal. Fills `expired` (cleared first) with
// the ids of the waiting requests to refuse, in the order of `waiting`.
void expired_deadlines(std::span<const RequestView> waiting, std::span<const RequestView> running,
                       int free_slots, const PromiseRules& rules, Clock::time_point now,
                       Clock::time_point last_admission, std::vector<std::uint64_t>& expired);

// A waiting request whose deadline can no longer be met: the wait it was expected to face, and
// how many requests were expected to start before it.
struct Unreachable {
  std::uint64_t id = 0;
  std::chrono::duration<double> wait{0};
  int ahead = 0;
};

class DeadlineCheck {
 public:
  // `aging`: the scheduler's (SchedulerOptions::aging), so the check orders the queue as it will.
  DeadlineCheck(PromiseRules rules, std::chrono::milliseconds aging);

  // Admission checked each deadline on arrival, against the service rate with a margin for how
  // completions bunch; since then higher classes may have overtaken a request, or the engine
  // may have slowed. Only while every slot is busy (`free_slots` 0; else nothing), the
  // waiting requests are taken in the order they will start (class after aging, then arrival;
  // tenant fairness aside), and each promised one whose start, by `admission`'s wait for the
  // requests ahead of it (AdmissionControl::wait_to_start), falls after its deadline is out of
  // reach: unless a running stream of its class or a lower one may pause for it at its
  // deadline (may_pause_for_promise; one stream per request). The re-check asks whether the
  // deadline is out of reach, not whether it is safe: it counts when the running sequences
  // will finish by the tokens they have left, not the arrival's rate, which says nothing of how
  // long a request has waited already (re-applied, it refused requests accepted on a thin
  // margin a few steps later, late, though their slot was about to free).
  // Returns the requests to refuse, in start order; valid until the next call.
  std::span<const Unreachable> unreachable(std::span<const RequestView> waiting,
                                           std::span<const RequestView> running, int free_slots,
                                           const AdmissionControl& admission,
                                           Clock::time_point now);

 private:
  struct Place {
    Priority priority;  // after aging: the class it competes in now
    Clock::time_point submitted;
    const RequestView* request;
  };

  const PromiseRules rules_;
  const std::chrono::milliseconds aging_;
  // Kept between calls, so a check allocates nothing once the queue has been this long.
  std::vector<Place> order_;
  std::vector<Priority> pausable_;  // classes of the streams that may pause, lowest first
  std::vector<Unreachable> unreachable_;
};

}  // namespace supportd::sched
