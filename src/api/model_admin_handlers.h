// The model roll-out routes (behind the admin key, api/admin_key.h), over the model router
// (engine/router/router_engine.h):
//   GET  /admin/models                         versions: file facts, state, traffic and
//                                              shadow shares, in flight, requests, errors,
//                                              refusals, TTFT / ITL / E2E p50 and p99, and
//                                              their shadow copies' figures and agreement
//   POST /admin/models                         {"name", "path", "sha256", "parallel",
//                                              "ctx_size", "by"}, or {"name", "upstream":
//                                              "http://...", "upstream_model", "by"}: 202
//                                              at once; the version loads (an upstream: its
//                                              model list answered) and warms up in the background
//                                              (loading, warming, then ready or failed with
//                                              the reason) and takes no traffic before ready
//   DELETE /admin/models/{name}?timeout_s=30   drain (no new requests; those in flight get
//                                              up to the timeout), then unload: 202 at once
//   GET  /admin/routes                         every deployment's split, the history, and
//                                              the shadow queue (capacity, waiting, running)
//   PUT  /admin/routes/{deployment}            {"weights": {"v1": 95, "v2": 5},
//                                               "sticky": true, "by": "who",
//                                               "shadow": {"version": "v3", "percent": 20}}
//   POST /admin/routes/{deployment}/rollback   back to the split before the last change
// Bad input answers 400 naming the field ("weights.v3": unknown version; "weights": not adding
// up to 100; a negative weight; "shadow.version": unknown or not ready; "shadow.percent":
// outside 0..100). Without a router (one model served) they answer 404.
// Thread-safety: handlers may run on any HTTP thread at once (the router serializes changes).
#pragma once

#include "api/routes.h"
#include "http/message.h"

namespace supportd::api {

http::Response list_model_versions(Services& services, http::Request& request);
http::Response load_model_version(Services& services, http::Request& request);
http::Response unload_model_version(Services& services, http::Request& request);
http::Response list_routes(Services& services, http::Request& request);

// How long a drain waits for the requests in flight when DELETE does not say.
inline constexpr double kDefaultDrainSeconds = 30;
http::Response put_route(Services& services, http::Request& request);
http::Response rollback_route(Services& services, http::Request& request);

}  // namespace supportd::api
