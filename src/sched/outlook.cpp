// The engine's outlook brought up to date from its running requests (see outlook.h).
#include "sched/outlook.h"

namespace supportd::sched {

void forecast(std::span<const RequestView> running, int free_slots, bool left_waiting,
              const Pace& pace, Clock::time_point now, EngineOutlook& outlook) {
  // What admission left waiting holds no slot: new arrivals then count on none.
  outlook.free_slots = left_waiting ? 0 : free_slots;
  // When each running sequence will finish: its prompt chunks and answer tokens left, at the
  // recent step time. Until completions are measured, admission control also needs some rate
  // to refuse on: with its slots kept full, the engine completes the running sequences' number
  // per service time (all of a sequence's prompt chunks and answer tokens). Their remaining
  // times would predict the next completion, but not the rate: midway through, that is twice
  // too fast, and one sequence about to finish alone claimed a hundred completions a second.
  const double step = pace.step_seconds;
  outlook.step_seconds = step;
  outlook.releases.clear();
  double service_steps = 0;
  for (const RequestView& r : running) {
    if (!r.streaming) continue;
    outlook.releases.push_back(seconds_after(now, pace.steps_left(r) * step));
    service_steps += pace.service_steps(r);
  }
  const double sequences = static_cast<double>(outlook.releases.size());
  outlook.service_seconds = sequences == 0 ? 0 : service_steps / sequences * step;
  if (step <= 0) outlook.releases.clear();
  if (outlook.service_seconds > 0) outlook.predicted_rate = sequences / outlook.service_seconds;
}

}  // namespace supportd::sched
