#include "api/routes.h"

#include "api/desk_handlers.h"
#include "api/desk_socket.h"
#include "api/openai_handlers.h"
#include "api/static_handlers.h"
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
  // The customer-service desk: customers.
  router.add("POST", "/v1/sessions", bind(start_session));
  router.add("POST", "/v1/sessions/{session}/messages", bind(post_message));
  router.add("GET", "/v1/sessions/{session}/messages", bind(get_messages));
  router.add("POST", "/v1/sessions/{session}/feedback", bind(post_feedback));
  router.add("POST", "/v1/sessions/{session}/handoff", bind(post_handoff));
  router.add("POST", "/v1/answer", bind(post_answer));
  router.add("GET", "/v1/ws", bind(customer_socket));
  // The desk: agents.
  router.add("GET", "/v1/agent/conversations", bind(agent_list));
  router.add("GET", "/v1/agent/conversations/{session}", bind(agent_conversation));
  for (const char* action : {"take", "reply", "close", "release"}) {
    router.add("POST", std::string("/v1/agent/conversations/{session}/") + action,
               [&s, action](http::Request& r) { return agent_action(s, r, action); });
  }
  router.add("GET", "/v1/agent/ws", bind(agent_socket));
  router.add("POST", "/v1/admin/kb/reload", bind(reload_knowledge));
  // Operations.
  router.add("GET", "/v1/stats", bind(stats));
  router.add("GET", "/metrics", bind(metrics));
  // The web pages built into the binary: demo page with the widget, agent console, dashboard.
  for (const char* page : {"/", "/widget.js", "/agent", "/dashboard", "/static/{file}"}) {
    router.add("GET", page, serve_static);
  }
  return router;
}

}  // namespace supportd::api
