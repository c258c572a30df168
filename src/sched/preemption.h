// Which running stream pauses when a waiting request needs its slot: the eligibility rules and
// the choice among the eligible (lowest class first, then the latest admitted: the least work
// lost). Pure functions over views (sched/request_view.h); the engine does the pausing.
// Thread-safety: pure functions.
#pragma once

#include <span>

#include "sched/request_view.h"

namespace supportd::sched {

// A stream may pause so that a request of class `candidate` starts: only one of a lower class
// than the candidate's own. Classes here are the requests' own, not aged: aging orders the
// queue, but if it also let a request preempt, two aged requests of different classes would
// preempt each other for ever (each resumed one outranking the other). Never one promised a
// start (a deadline and no first token yet): paused now, it could miss its deadline in the
// queue; it has its first token within a few steps.
bool may_pause_for(const RequestView& running, Priority candidate);

// A stream may pause so that a promised request of class `promised` starts by its deadline:
// one of its own class or a lower one; paused at most once (a stream paused for every promise
// in turn would never finish); and not one promised a start itself.
bool may_pause_for_promise(const RequestView& running, Priority promised);

// The stream among `running` to pause for a request of class `candidate` (may_pause_for), or
// for a promised one (may_pause_for_promise): the lowest class, then the latest admitted.
// Null when none may pause. The result points into `running`.
const RequestView* stream_to_pause(std::span<const RequestView> running, Priority candidate);
const RequestView* stream_to_pause_for_promise(std::span<const RequestView> running,
                                               Priority promised);

}  // namespace supportd::sched
