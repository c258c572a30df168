// What the engine expects of itself, in one piece: the free slots, the step time, when the
// step now running ends, when each running sequence should finish and the service rate those
// predict. The engine updates its outlook (forecast) and publishes it to admission control
// whole (AdmissionControl::publish), so that a request arriving on another thread never weighs
// one step's free slots against another step's releases.
// Thread-safety: plain data and a pure function.
#pragma once

#include <span>
#include <vector>

#include "sched/request_view.h"

namespace supportd::sched {

struct EngineOutlook {
  // Sequence slots that will be free for the requests now waiting at the engine's next start
  // (0 while requests already wait for one). Slots free up only between engine steps, so
  // requests arriving during a step take them in class order and the rest wait for
  // completions. Until the engine says: plenty.
  int free_slots = 1 << 20;
  double step_seconds = 0;     // the recent mean step time; 0 until measured
  Clock::time_point step_end;  // when the step now running is expected to end (by its tokens)
  // Completions per second expected from the running sequences' work and the step time, used
  // until completions have been measured (a cold start into a surge); 0 when unknown.
  double predicted_rate = 0;
  // When each running sequence is expected to finish (its prompt chunks and answer tokens
  // left, at the step time), in any order; empty when nothing runs or steps are not timed.
  std::vector<Clock::time_point> releases;
  double service_seconds = 0;  // the mean time a sequence takes from start to finish
};

// Brings `outlook` up to date at `now`, but for step_end (the engine sets it when a step
// starts): the free slots (`free_slots`, or none when requests are `left_waiting` after the
// engine's admission: dynamic batching, or short of KV cells), the step time, and from the
// `running` requests still streaming at `pace`, the releases, the service time and, when any
// runs, the predicted rate (else the last prediction stands). Reuses the releases' storage.
void forecast(std::span<const RequestView> running, int free_slots, bool left_waiting,
              const Pace& pace, Clock::time_point now, EngineOutlook& outlook);

}  // namespace supportd::sched
