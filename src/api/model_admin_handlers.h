// The model roll-out routes (behind the admin key, api/admin_key.h), over the model router
// (engine/router/router_engine.h):
//   GET  /admin/models                         versions: file facts, state, traffic share,
//                                              in flight, latency and error figures
//   DELETE /admin/models/{name}?timeout_s=30   drain (no new requests; those in flight get
//                                              up to the timeout), then unload: 202 at once
//   GET  /admin/routes                         every deployment's split, and the history
//   PUT  /admin/routes/{deployment}            {"weights": {"v1": 95, "v2": 5},
//                                               "sticky": true, "by": "who"}
//   POST /admin/routes/{deployment}/rollback   back to the split before the last change
// Bad input answers 400 naming the field ("weights.v3": unknown version; "weights": not adding
// up to 100; a negative weight). Without a router (one model served) they answer 404.
// Thread-safety: handlers may run on any HTTP thread at once (the router serializes changes).
#pragma once

#include "api/routes.h"
#include "http/message.h"

namespace supportd::api {

http::Response list_model_versions(Services& services, http::Request& request);
http::Response unload_model_version(Services& services, http::Request& request);
http::Response list_routes(Services& services, http::Request& request);

// How long a drain waits for the requests in flight when DELETE does not say.
inline constexpr double kDefaultDrainSeconds = 30;
http::Response put_route(Services& services, http::Request& request);
http::Response rollback_route(Services& services, http::Request& request);

}  // namespace supportd::api
