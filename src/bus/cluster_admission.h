// A gateway's early refusal, from the cluster's measured capacity rather than a guess: 503 while
// the message bus is unreachable or no engine is alive; 429 when the class's cluster-wide
// queue is full; 503 when the request could not start before its deadline at the rate the
// engines measure. Each refusal carries a Retry-After from the same numbers. The JetStream
// stream enforces the queue bound itself too (a store past it is refused), so the bound holds
// even between two readings of the queue depth.
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <optional>

#include "bus/cluster_view.h"
#include "core/status.h"
#include "sched/priority.h"

namespace supportd::bus {

struct AdmissionFacts {
  ClusterSnapshot cluster;
  bool link_up = true;
  std::chrono::milliseconds link_down_for{0};
  std::chrono::milliseconds reconnect_wait{250};
  int queue_bound = 0;  // per class (queued and held); 0: none
};

// Seconds a request of `priority` would wait before an engine starts it: none while a slot is
// free for it (the requests ahead of it in its class and above take the free slots first),
// otherwise the requests ahead beyond the free slots at the engines' completion rate. Nullopt
// while the rate is unknown (nothing measured yet).
std::optional<double> expected_wait_seconds(const ClusterSnapshot& cluster,
                                            sched::Priority priority);

// Nullopt to accept; otherwise the refusal (kUnavailable, kOverloaded or kDeadline, with
// retry_after_s set). `time_left` is the request's deadline from now, if it has one.
std::optional<Error> refuse(const AdmissionFacts& facts, sched::Priority priority,
                            std::optional<std::chrono::duration<double>> time_left);

}  // namespace supportd::bus
