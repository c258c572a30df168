// Keeping promises: a request accepted with a deadline was promised a start by then. Two ways
// keep it: the last free slot goes to a waiting request whose last chance it is (keep_promise),
// and, with preemption on, a request whose deadline falls before the next admission starts at
// once in the slot of a running stream that pauses for it (due_promises, then
// stream_to_pause_for_promise in sched/preemption.h). Pure functions over views
// (sched/request_view.h); the engine starts and pauses.
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "sched/request_view.h"

namespace supportd::sched {

// How the engine may keep promises; fixed per engine.
struct PromiseRules {
  bool continuous = true;  // continuous batching (under dynamic batching no start is timed)
  bool preemption = true;  // running streams may pause for another request (--preemption)
  // Promises are kept by pausing a stream only with preemption on, in continuous batching.
  bool pausing() const { return preemption && continuous; }
};

// Whether the free slot `chosen` (the scheduler's pick) is about to take could be weighed
// against another request's promise at all: only when it is the last free slot, steps are
// timed, batching is continuous, and `chosen` itself has something to lose by waiting (a
// deadline, or a started stream resuming). A request with neither has a promise nobody
// measured: it is never passed over.
bool may_pass_over(const RequestView& chosen, int free_slots, const Pace& pace,
                   const PromiseRules& rules);

// The id of the request to start in the last free slot: `chosen`'s, unless the slot is a
// waiting request's last chance (the next slot to free, if `chosen` takes this one, frees
// after its deadline), that request fits the `free_cells` free now, and `chosen` can wait for
// the next slot within its own deadline (a resuming stream, past its first token, has none
// left to keep); then the promised request's, the earliest deadline of those first.
// REQUIRES: may_pass_over(chosen, ...) is true; `waiting` holds `chosen`.
std::uint64_t keep_promise(const RequestView& chosen, std::span<const RequestView> waiting,
                           std::span<const RequestView> running, std::int64_t free_cells,
                           const Pace& pace, Clock::time_point now);

// Whether a promised request of class `promised` can still start now: with pausing on, in a
// free slot or in that of a running stream that may pause for it.
bool can_keep_promise(Priority promised, std::span<const RequestView> running, int free_slots,
                      const PromiseRules& rules);

// The least the window of promise_window allows for the operating system's scheduling delays,
// which millisecond steps do not cover.
inline constexpr std::chrono::milliseconds kPromiseJitter{25};

// Seconds from now within which a deadline is due now: the next admission comes after the
// step about to run. Allowed for: twice the slowest recent loop iteration, three mean steps
// (until iterations are measured), and kPromiseJitter at least.
double promise_window(double slowest_iteration_seconds, double step_seconds);

// The waiting requests promised a start by `due_by` or earlier (one already past its deadline
// is there only if a step overran), earliest deadline first, into `due` (cleared first; its
// pointers point into `waiting`).
void due_promises(std::span<const RequestView> waiting, Clock::time_point due_by,
                  std::vector<const RequestView*>& due);

}  // namespace supportd::sched
