// The model versions' figures in /metrics, labelled by version (version="NAME"), refreshed at
// each scrape from RouterEngine::versions():
//   supportd_version_requests_total, _errors_total, _refusals_total, _in_flight,
//   supportd_version_ttft_seconds / _itl_seconds / _e2e_seconds {quantile="0.5"|"0.99"},
//   supportd_version_ready (1 ready, 0 otherwise);
// and what each version's shadow copies did:
//   supportd_shadow_copies_total, _dropped_total, _errors_total, _compared_total,
//   supportd_shadow_exact_match_ratio, supportd_shadow_token_overlap,
//   supportd_shadow_ttft_seconds / _e2e_seconds {quantile}.
// Counts are gauges set from the router's atomics (as engine/remote/remote_metrics.h does).
// A version unloaded keeps its last values.
#pragma once

#include "engine/router/router_engine.h"
#include "obs/metrics.h"

namespace supportd::engine::router {

// REQUIRES: `router` outlives `registry`'s scrapes.
void expose_router_metrics(obs::Registry& registry, const RouterEngine& router);

}  // namespace supportd::engine::router
