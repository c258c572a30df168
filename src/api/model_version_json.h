// Model versions and splits as JSON (engine/router): what GET /admin/models, GET /admin/routes
// and /v1/stats show of them, written once for all three.
// Thread-safety: pure functions over values.
#pragma once

#include <map>
#include <string>

#include <boost/json/fwd.hpp>

#include "engine/router/router_engine.h"

namespace supportd::api {

// {"weights": {NAME: PERCENT, ...}, "sticky": BOOL[, "shadow": {"version", "percent"}]}
boost::json::object split_json(const engine::router::Split& split);

// A version's figures: requests, errors, refusals, in flight, TTFT / ITL / E2E p50 and p99 in
// milliseconds, and what its copies did as a shadow ("shadow": copies, dropped, errors,
// completed, compared, exact_match_rate, token_overlap, ttft and e2e p50 / p99).
boost::json::object version_figures_json(const engine::router::VersionView& view);
// Those figures with the version's percent of each deployment's traffic ("traffic_percent":
// {DEPLOYMENT: PERCENT}, only those it takes a share of) and its shadow percent of each
// ("shadow_percent"), from `routes`: what /v1/stats shows.
boost::json::object version_figures_json(
    const engine::router::VersionView& view,
    const std::map<std::string, engine::router::Split>& routes);

// A version whole, as GET /admin/models lists it: name, state, reason, the file's facts, its
// percent of each deployment's traffic (`routes`), its shadow percent of each, and its figures.
boost::json::object version_json(const engine::router::VersionView& view,
                                 const std::map<std::string, engine::router::Split>& routes);

}  // namespace supportd::api
