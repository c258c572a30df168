// The route table: every endpoint supportd serves, in one ordered list (routes.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "api/admin_key.h"
#include "http/cross_origin.h"
#include "http/router.h"
#include "http/server.h"

namespace supportd::engine {
class Engine;
}
namespace supportd::engine::router {
class RouterEngine;
struct VersionSpec;
}  // namespace supportd::engine::router

namespace supportd::api {

class Access;
class LoadShedding;
class ServingMetrics;
}  // namespace supportd::api
namespace supportd::desk {
class Desk;
}
namespace supportd::obs::anomaly {
class AnomalyMonitor;
}  // namespace supportd::obs::anomaly
namespace supportd::obs::trace {
class Tracer;
}
namespace supportd::obs::faults {
class FaultInjector;
}
namespace supportd::api {

// What the handlers need; owned by the caller and outliving the router. Only `engine` is
// required; without `access` nobody needs a key, without `metrics` nothing is recorded.
struct Services {
  engine::Engine* engine = nullptr;
  Access* access = nullptr;
  ServingMetrics* metrics = nullptr;
  desk::Desk* desk = nullptr;            // the customer-service endpoints (absent: 404)
  obs::trace::Tracer* tracer = nullptr;  // request spans, /v1/traces (absent: no tracing)
  obs::anomaly::AnomalyMonitor* anomaly = nullptr;  // GET /v1/alerts (absent: 404)
  http::CrossOrigin cross_origin;                   // which sites' pages may call (default: any)
  AdminKey admin_key;  // what /admin routes require (none: they answer 404)
  obs::faults::FaultInjector* faults = nullptr;
  LoadShedding* shedding = nullptr;   // /admin/shed: classes refused at run time (absent: 404)  //
                                      // /admin/faults and the fault points (absent: off)
  std::vector<std::string> warnings;  // degraded parts, shown in /ready's details
  // The model router when several versions are served: /admin/models and /admin/routes
  // (absent: they answer 404), its problems in /ready. The same object as `engine`.
  engine::router::RouterEngine* router = nullptr;
  // POST /admin/models: checks a version to load and starts loading it into `router` (the
  // app's, with serve's engine options); absent: that route answers 404.
  std::function<Status(const engine::router::VersionSpec&)> load_model;
};

http::Router make_router(Services& services);
// The probes alone (/health, /ready, /metrics): what an engine node of a cluster serves over
// HTTP (supportd serve --role engine); its requests come over NATS.
http::Router make_probe_router(Services& services);

// `options` with what the routes ask of the server: the errors it answers before any route
// (a body over the limit, a malformed request) carry the CORS headers open routes have; with
// a tracer, every request gets its span (api/request_tracing.h).
http::ServerOptions serve_routes_with(const Services& services, http::ServerOptions options);

}  // namespace supportd::api
