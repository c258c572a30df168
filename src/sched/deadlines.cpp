// Which waiting requests' deadlines have passed or are out of reach (see deadlines.h).
#include "sched/deadlines.h"

#include <algorithm>
#include <functional>

#include "sched/scheduler.h"

namespace supportd::sched {

void expired_deadlines(std::span<const RequestView> waiting, std::span<const RequestView> running,
                       int free_slots, const PromiseRules& rules, Clock::time_point now,
                       Clock::time_point last_admission, std::vector<std::uint64_t>& expired) {
  expired.clear();
  for (const RequestView& w : waiting) {
    if (!w.promised() || *w.deadline > now) continue;
    const bool late_loop = *w.deadline > last_admission;
    if (late_loop && can_keep_promise(w.priority, running, free_slots, rules)) continue;
    expired.push_back(w.id);
  }
}

DeadlineCheck::DeadlineCheck(PromiseRules rules, std::chrono::milliseconds aging)
    : rules_(rules), aging_(aging) {}

std::span<const Unreachable> DeadlineCheck::unreachable(std::span<const RequestView> waiting,
                                                        std::span<const RequestView> running,
                                                        int free_slots,
                                                        const AdmissionControl& admission,
                                                        Clock::time_point now) {
  unreachable_.clear();
  if (waiting.empty() || free_slots > 0) return {};
  order_.clear();
  bool any_promised = false;
  for (const RequestView& w : waiting) {
    order_.push_back({effective_priority(w.priority, w.submitted, now, aging_), w.submitted, &w});
    any_promised = any_promised || w.promised();
  }
  if (!any_promised) return {};
  // The order in which they will start, tenant fairness aside.
  std::sort(order_.begin(), order_.end(), [](const Place& a, const Place& b) {
    return a.priority != b.priority ? a.priority < b.priority : a.submitted < b.submitted;
  });
  // Streams that may pause for a promise, lowest class first: each can keep one. One before
  // its first token with a deadline will have it by the time it is needed.
  pausable_.clear();
  if (rules_.pausing()) {
    for (const RequestView& r : running) {
      if (r.streaming && r.preemptions == 0) pausable_.push_back(r.priority);
    }
    std::sort(pausable_.begin(), pausable_.end(), std::greater<>());
  }
  int ahead = 0;
  for (const Place& place : order_) {
    const RequestView& w = *place.request;
    if (!w.promised()) {
      ++ahead;
      continue;
    }
    // Its own class and how long it has waited: the estimate ages it the way the scheduler will.
    const auto waited = std::chrono::duration<double>(now - w.submitted);
    const auto wait = admission.wait_to_start(w.priority, ahead, now, waited);
    if (now + std::chrono::duration_cast<Clock::duration>(wait) > *w.deadline) {
      // Kept at its deadline by pausing a stream of its class or a lower one, if there is one.
      const auto stream = std::find_if(pausable_.begin(), pausable_.end(),
                                       [&](Priority p) { return p >= w.priority; });
      if (stream != pausable_.end()) {
        pausable_.erase(stream);
        ++ahead;
        continue;
      }
      unreachable_.push_back({w.id, wait, ahead});
      continue;  // refused: no longer ahead of anyone
    }
    ++ahead;
  }
  return unreachable_;
}

}  // namespace supportd::sched
