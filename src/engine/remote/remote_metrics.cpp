// supportd_cluster_* gauges from RemoteEngine::remote_stats().
#include "engine/remote/remote_metrics.h"

namespace supportd::engine::remote {

void expose_remote_metrics(obs::Registry& registry, const RemoteEngine& engine) {
  auto& engines = registry.gauge("supportd_cluster_engines",
                                 "Engine nodes alive and ready, as this gateway hears them");
  auto& submitted =
      registry.gauge("supportd_cluster_submitted_total", "Requests stored in the cluster's queue");
  auto& resumed = registry.gauge(
      "supportd_cluster_resumed_total",
      "Streams continued by another engine after a pause (an engine died or lost tokens)");
  auto& pause = registry.gauge("supportd_cluster_resume_pause_seconds_total",
                               "Customers' extra wait in resumed streams, summed");
  auto& duplicates = registry.gauge("supportd_cluster_duplicate_tokens_total",
                                    "Token events dropped: their number was delivered already");
  auto& superseded = registry.gauge("supportd_cluster_superseded_events_total",
                                    "Events dropped from an attempt no longer current");
  auto& gaps = registry.gauge("supportd_cluster_gaps_total",
                              "Missing token numbers that made an engine hand a request back");
  auto& lost = registry.gauge("supportd_cluster_lost_total",
                              "Requests ended with an error because no engine could go on");
  registry.on_collect(
      [&engine, &engines, &submitted, &resumed, &pause, &duplicates, &superseded, &gaps, &lost] {
        const RemoteStats stats = engine.remote_stats();
        engines.get().set(stats.engines);
        submitted.get().set(static_cast<double>(stats.submitted));
        resumed.get().set(static_cast<double>(stats.resumed));
        pause.get().set(stats.resume_pause_ms_total / 1000.0);
        duplicates.get().set(static_cast<double>(stats.duplicates));
        superseded.get().set(static_cast<double>(stats.superseded));
        gaps.get().set(static_cast<double>(stats.gaps));
        lost.get().set(static_cast<double>(stats.lost));
      });
}

}  // namespace supportd::engine::remote
