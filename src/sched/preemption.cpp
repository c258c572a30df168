// Preemption's rules and choice of stream (see preemption.h).
#include "sched/preemption.h"

namespace supportd::sched {
namespace {

template <typename Eligible>
const RequestView* lowest_latest(std::span<const RequestView> running, Eligible eligible) {
  const RequestView* victim = nullptr;
  for (const RequestView& r : running) {
    if (!eligible(r)) continue;
    if (victim == nullptr || r.priority > victim->priority ||
        (r.priority == victim->priority && r.admitted > victim->admitted)) {
      victim = &r;
    }
  }
  return victim;
}

}  // namespace

bool may_pause_for(const RequestView& running, Priority candidate) {
  return running.streaming && running.priority > candidate && !running.promised();
}

bool may_pause_for_promise(const RequestView& running, Priority promised) {
  return running.streaming && running.priority >= promised && running.preemptions == 0 &&
         !running.promised();
}

const RequestView* stream_to_pause(std::span<const RequestView> running, Priority candidate) {
  return lowest_latest(running, [&](const RequestView& r) { return may_pause_for(r, candidate); });
}

const RequestView* stream_to_pause_for_promise(std::span<const RequestView> running,
                                               Priority promised) {
  return lowest_latest(running,
                       [&](const RequestView& r) { return may_pause_for_promise(r, promised); });
}

}  // namespace supportd::sched
