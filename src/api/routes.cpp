#include "api/routes.h"

#include "api/openai_handlers.h"
#include "api/stats_handlers.h"

namespace supportd::api {

http::Router make_router(Services& s) {
  http::Router router;
  auto bind = [&s](auto handler) {
    return [&s, handler](http::Request& request) { return handler(s, request); };
  };
  // Probes.
  router.add("GET", "/health", bind(health));
  router.add("GET", "/ready", bind(ready));
  // OpenAI-compatible API.
  router.add("GET", "/v1/models", bind(list_models));
  router.add("POST", "/v1/chat/completions",
             bind([](Services& s, http::Request& r) { return create_completion(s, r, true); }));
  router.add("POST", "/v1/completions",
             bind([](Services& s, http::Request& r) { return create_completion(s, r, false); }));
  // Operations.
  router.add("GET", "/v1/stats", bind(stats));
  router.add("GET", "/metrics", bind(metrics));
  return router;
}

}  // namespace supportd::api
