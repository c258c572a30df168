// supportd_node_* gauges from EngineWorker::stats().
#include "bus/worker_metrics.h"

namespace supportd::bus {

void expose_worker_metrics(obs::Registry& registry, const EngineWorker& worker) {
  auto& held = registry.gauge("supportd_node_held_requests",
                              "Requests this engine node holds from the cluster's queue now");
  auto& taken = registry.gauge("supportd_node_taken_total",
                               "Requests this engine node took from the queue and started");
  auto& finished = registry.gauge("supportd_node_finished_total",
                                  "Requests this engine node ended and acknowledged");
  auto& resumed =
      registry.gauge("supportd_node_resumed_total",
                     "Redelivered requests this node continued after the text their customer had");
  auto& given_back = registry.gauge(
      "supportd_node_given_back_total",
      "Requests this node handed back to the queue (asked by a gateway, or stopping)");
  auto& dropped = registry.gauge(
      "supportd_node_dropped_total",
      "Requests taken that nobody waited for any more (cancelled, finished, unreadable)");
  auto& rate = registry.gauge("supportd_node_completion_rate",
                              "Requests this node completes per busy second, recent");
  registry.on_collect([&worker, &held, &taken, &finished, &resumed, &given_back, &dropped, &rate] {
    const WorkerStats stats = worker.stats();
    held.get().set(stats.held);
    taken.get().set(static_cast<double>(stats.taken));
    finished.get().set(static_cast<double>(stats.finished));
    resumed.get().set(static_cast<double>(stats.resumed));
    given_back.get().set(static_cast<double>(stats.given_back));
    dropped.get().set(static_cast<double>(stats.dropped));
    rate.get().set(stats.completion_rate);
  });
}

}  // namespace supportd::bus
