// The cluster's admission maths (bus/cluster_admission.h).
#include "bus/cluster_admission.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace supportd::bus {
namespace {

int ceil_seconds(double seconds) {
  return std::max(1, static_cast<int>(std::ceil(seconds)));
}

// Requests per second the engines complete: as measured, else (before any measurement) their
// slots over the mean service time when that is known.
double service_rate(const ClusterSnapshot& cluster) {
  if (cluster.completion_rate > 0) return cluster.completion_rate;
  if (cluster.service_seconds > 0) return cluster.slots / cluster.service_seconds;
  return 0;
}

}  // namespace

std::optional<double> expected_wait_seconds(const ClusterSnapshot& cluster,
                                            sched::Priority priority) {
  std::int64_t ahead = 0;
  for (int p = 0; p <= static_cast<int>(priority); ++p)
    ahead += cluster.queued[static_cast<std::size_t>(p)];
  const std::int64_t free = std::max(0, cluster.slots - cluster.held);
  if (ahead < free) return 0.0;
  const double rate = service_rate(cluster);
  if (rate <= 0) return std::nullopt;
  return static_cast<double>(ahead - free + 1) / rate;
}

std::optional<Error> refuse(const AdmissionFacts& facts, sched::Priority priority,
                            std::optional<std::chrono::duration<double>> time_left) {
  if (!facts.link_up) {
    Error error =
        Error::make(ErrorCode::kUnavailable,
                    fmt::format("the cluster's message bus (NATS) has been unreachable for {} ms; "
                                "reconnecting",
                                facts.link_down_for.count()));
    // Reconnection is tried every reconnect_wait; a restarted server takes a second or two.
    error.retry_after_s = ceil_seconds(std::max(2.0, 4 * facts.reconnect_wait.count() / 1000.0));
    return error;
  }
  const ClusterSnapshot& cluster = facts.cluster;
  if (cluster.engines == 0) {
    Error error = Error::make(ErrorCode::kUnavailable, "no engine node is serving the cluster");
    error.retry_after_s = 2;  // an engine announces itself twice a second once ready
    return error;
  }
  const double rate = service_rate(cluster);
  const std::int64_t queued = cluster.queued[static_cast<std::size_t>(priority)];
  if (facts.queue_bound > 0 && queued >= facts.queue_bound) {
    Error error = Error::make(ErrorCode::kOverloaded,
                              fmt::format("the cluster's {} queue is full ({} requests)",
                                          priority_name(priority), queued));
    error.retry_after_s = rate > 0 ? ceil_seconds(static_cast<double>(queued) / rate) : 1;
    return error;
  }
  if (time_left) {
    const std::optional<double> wait = expected_wait_seconds(cluster, priority);
    if (wait && *wait > time_left->count()) {
      Error error = Error::make(
          ErrorCode::kDeadline,
          fmt::format("the request could not start before its deadline: about {:.1f} s of "
                      "requests wait ahead of it in the cluster ({:.1f} requests/s over {} "
                      "engines)",
                      *wait, rate, cluster.engines));
      error.retry_after_s = ceil_seconds(*wait);
      return error;
    }
  }
  return std::nullopt;
}

}  // namespace supportd::bus
