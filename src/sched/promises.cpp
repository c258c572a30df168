// Keeping the promises made to requests accepted with a deadline (see promises.h).
#include "sched/promises.h"

#include <algorithm>
#include <limits>

#include "sched/preemption.h"

namespace supportd::sched {

bool may_pass_over(const RequestView& chosen, int free_slots, const Pace& pace,
                   const PromiseRules& rules) {
  // More slots free (or none known to be timed): no one's last chance.
  if (free_slots != 1 || pace.step_seconds <= 0 || !rules.continuous) return false;
  return chosen.deadline || chosen.has_first_token;
}

std::uint64_t keep_promise(const RequestView& chosen, std::span<const RequestView> waiting,
                           std::span<const RequestView> running, std::int64_t free_cells,
                           const Pace& pace, Clock::time_point now) {
  if (!chosen.deadline && !chosen.has_first_token) return chosen.id;  // see may_pass_over
  const double step = pace.step_seconds;
  double next_running = std::numeric_limits<double>::infinity();  // seconds to the next release
  for (const RequestView& r : running) {
    if (r.streaming) next_running = std::min(next_running, pace.steps_left(r) * step);
  }
  // The next slot to free if `chosen` takes this one; a request whose deadline falls before it
  // can only start now.
  const auto next_if_chosen =
      seconds_after(now, std::min(next_running, pace.steps_left(chosen) * step) + step);
  const RequestView* promised = nullptr;
  for (const RequestView& w : waiting) {
    if (w.id == chosen.id || !w.promised()) continue;
    const auto deadline = *w.deadline;
    if (deadline <= now || deadline >= next_if_chosen || w.cells > free_cells) continue;
    if (promised == nullptr || deadline < *promised->deadline) promised = &w;
  }
  if (promised == nullptr) return chosen.id;
  // `chosen`, first in line, then starts at the next release: its deadline must allow that.
  const auto next_if_promised =
      seconds_after(now, std::min(next_running, pace.steps_left(*promised) * step) + step);
  if (!chosen.has_first_token && *chosen.deadline < next_if_promised) return chosen.id;
  return promised->id;
}

bool can_keep_promise(Priority promised, std::span<const RequestView> running, int free_slots,
                      const PromiseRules& rules) {
  if (!rules.pausing()) return false;
  if (free_slots > 0) return true;
  return std::any_of(running.begin(), running.end(),
                     [&](const RequestView& r) { return may_pause_for_promise(r, promised); });
}

double promise_window(double slowest_iteration_seconds, double step_seconds) {
  return std::max({2 * slowest_iteration_seconds, 3 * step_seconds,
                   std::chrono::duration<double>(kPromiseJitter).count()});
}

void due_promises(std::span<const RequestView> waiting, Clock::time_point due_by,
                  std::vector<const RequestView*>& due) {
  due.clear();
  for (const RequestView& w : waiting) {
    if (w.promised() && *w.deadline <= due_by) due.push_back(&w);
  }
  std::sort(due.begin(), due.end(),
            [](const RequestView* a, const RequestView* b) { return *a->deadline < *b->deadline; });
}

}  // namespace supportd::sched
