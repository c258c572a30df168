// The route table, in one ordered list, and which routes other sites' pages may call (see
// routes.h).
#include "api/routes.h"

#include <algorithm>

#include "api/access.h"
#include "api/desk_handlers.h"
#include "api/desk_socket.h"
#include "api/fault_handlers.h"
#include "api/load_shedding.h"
#include "api/model_admin_handlers.h"
#include "api/openai_handlers.h"
#include "api/request_tracing.h"
#include "api/static_handlers.h"
#include "api/stats_handlers.h"
#include "api/trace_handlers.h"

namespace supportd::api {

http::Router make_router(Services& s) {
  http::Router router;
  auto bind = [&s](auto handler) {
    return [&s, handler](http::Request& request) { return handler(s, request); };
  };
  // Routes other sites' pages may call (the widget embedded elsewhere, browser apps on the
  // OpenAI API): CORS headers on their answers and a preflight per path, added at the end.
  std::vector<std::pair<std::string, std::string>> open_paths;  // pattern, "GET, POST"
  // The API's routes pass the http stage's fault point first (api/fault_handlers.h).
  auto open = [&](const std::string& method, const std::string& pattern, auto handler) {
    router.add(method, pattern, s.cross_origin.open(with_http_faults(s, bind(handler))));
    auto it = std::find_if(open_paths.begin(), open_paths.end(),
                           [&](const auto& path) { return path.first == pattern; });
    if (it == open_paths.end()) {
      open_paths.emplace_back(pattern, method);
    } else {
      it->second += ", " + method;
    }
  };
  // Routes for this server's own pages and for operators: another site's pages are refused.
  auto own = [&](const std::string& method, const std::string& pattern, http::Router::Handler h) {
    router.add(method, pattern, s.cross_origin.same_site(std::move(h)));
  };
  // Operator verbs that change how the server runs: the admin key's, never another site's
  // (no CORS headers, not even on their errors; api/admin_key.h).
  auto admin = [&](const std::string& method, const std::string& pattern, auto handler) {
    router.add(method, pattern, s.admin_key.guard(bind(handler)));
  };
  // Probes.
  own("GET", "/health", bind(health));
  own("GET", "/ready", bind(ready));
  // OpenAI-compatible API.
  open("GET", "/v1/models", list_models);
  open("GET", "/v1/models/{model}", retrieve_model);
  open("POST", "/v1/chat/completions",
       [](Services& s, http::Request& r) { return create_completion(s, r, true); });
  open("POST", "/v1/completions",
       [](Services& s, http::Request& r) { return create_completion(s, r, false); });
  // The customer-service desk: customers.
  open("POST", "/v1/sessions", start_session);
  open("POST", "/v1/sessions/{session}/messages", post_message);
  open("GET", "/v1/sessions/{session}/messages", get_messages);
  open("POST", "/v1/sessions/{session}/feedback", post_feedback);
  open("POST", "/v1/sessions/{session}/handoff", post_handoff);
  open("POST", "/v1/answer", post_answer);
  open("GET", "/v1/ws", customer_socket);
  // The desk: agents.
  own("GET", "/v1/agent/conversations", bind(agent_list));
  own("GET", "/v1/agent/conversations/{session}", bind(agent_conversation));
  for (const char* action : {"take", "reply", "close", "release"}) {
    own("POST", std::string("/v1/agent/conversations/{session}/") + action,
        [&s, action](http::Request& r) { return agent_action(s, r, action); });
  }
  own("GET", "/v1/agent/ws", bind(agent_socket));
  // Every tenant's knowledge base: the operator's, behind the admin key.
  admin("POST", "/v1/admin/kb/reload", reload_knowledge);
  // Operations.
  own("GET", "/v1/stats", bind(stats));
  own("GET", "/metrics", bind(metrics));
  own("GET", "/v1/alerts", bind(alerts));
  // Traces show every tenant's requests as they were, paths with session ids included (a
  // session id and the widget's public key read a conversation): with API keys, which keep
  // tenants apart, they are the admin key's (404 without one, as /admin); without keys, where
  // every caller is the one tenant "anonymous", as open as the rest of the API.
  auto tenants_apart = [&](const std::string& method, const std::string& pattern, auto handler) {
    if (s.access != nullptr && s.access->keys_required()) {
      own(method, pattern, s.admin_key.guard(bind(handler)));
    } else {
      own(method, pattern, bind(handler));
    }
  };
  tenants_apart("GET", "/v1/traces", list_traces);
  tenants_apart("GET", "/v1/traces/{trace_id}", get_trace);
  // Administration (behind the admin key).
  admin("POST", "/admin/faults", add_fault);
  admin("GET", "/admin/faults", list_faults);
  admin("DELETE", "/admin/faults", clear_faults);
  admin("DELETE", "/admin/faults/{id}", remove_fault);
  admin("POST", "/admin/shed", add_shed);
  admin("GET", "/admin/shed", list_shed);
  admin("DELETE", "/admin/shed", clear_shed);
  admin("GET", "/admin/models", list_model_versions);
  admin("POST", "/admin/models", load_model_version);
  admin("DELETE", "/admin/models/{name}", unload_model_version);
  admin("GET", "/admin/routes", list_routes);
  admin("PUT", "/admin/routes/{deployment}", put_route);
  admin("POST", "/admin/routes/{deployment}/rollback", rollback_route);
  // The web pages built into the binary: demo page with the widget, agent console, dashboard.
  // The widget's script is loaded by other sites' pages.
  router.add("GET", "/widget.js", s.cross_origin.open(serve_static));
  for (const char* page : {"/", "/agent", "/dashboard", "/static/{file}"}) {
    own("GET", page, serve_static);
  }
  // An unknown path or method from an allowed page: readable there, not a network error.
  router.label_misses([&s](const http::Request& request, http::Response& response) {
    if (is_admin_path(request.path)) return;
    s.cross_origin.label_error(request, response);
  });
  for (const auto& [pattern, methods] : open_paths) {
    router.add("OPTIONS", pattern,
               [&s, methods](http::Request& r) { return s.cross_origin.preflight(r, methods); });
  }
  if (s.tracer != nullptr) router.on_match(name_route);
  return router;
}

http::Router make_probe_router(Services& s) {
  http::Router router;
  auto probe = [&](const std::string& pattern, auto handler) {
    router.add("GET", pattern, s.cross_origin.same_site([&s, handler](http::Request& request) {
      return handler(s, request);
    }));
  };
  probe("/health", health);
  probe("/ready", ready);
  probe("/metrics", metrics);
  return router;
}

http::ServerOptions serve_routes_with(const Services& services, http::ServerOptions options) {
  options.label_errors = [cross_origin = services.cross_origin](const http::Request& request,
                                                                http::Response& response) {
    if (is_admin_path(request.path)) return;
    cross_origin.label_error(request, response);
  };
  if (services.tracer != nullptr) {
    options.watch =
        make_request_watcher(*services.tracer, options.tls.enabled() ? "https" : "http");
  }
  return options;
}

}  // namespace supportd::api
