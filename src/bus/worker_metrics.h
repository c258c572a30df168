// An engine node's cluster numbers in /metrics (supportd_node_*), refreshed at each scrape.
#pragma once

#include "bus/engine_worker.h"
#include "obs/metrics.h"

namespace supportd::bus {

// REQUIRES: `worker` outlives `registry`'s scrapes.
void expose_worker_metrics(obs::Registry& registry, const EngineWorker& worker);

}  // namespace supportd::bus
