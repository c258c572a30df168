// A gateway's cluster numbers in /metrics (supportd_cluster_*), refreshed at each scrape.
#pragma once

#include "engine/remote/remote_engine.h"
#include "obs/metrics.h"

namespace supportd::engine::remote {

// REQUIRES: `engine` outlives `registry`'s scrapes.
void expose_remote_metrics(obs::Registry& registry, const RemoteEngine& engine);

}  // namespace supportd::engine::remote
