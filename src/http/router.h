// Maps method + path to a handler. Patterns are literal segments and "{name}" captures, e.g.
// "/v1/sessions/{id}/messages". HEAD goes to the GET route. Unknown paths get 404, known
// paths with another method 405, both as JSON errors. Built once at start-up, then read-only
// (thread-safe).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "http/message.h"

namespace supportd::http {

class Router {
 public:
  using Handler = std::function<Response(Request&)>;

  // Called on the 404s and 405s the router answers itself, which no route's policy saw (e.g.
  // to add the CORS headers that let an allowed page read them).
  using Label = std::function<void(const Request& request, Response& response)>;

  // Called with the route's name just before its handler runs: the request's method and the
  // route's pattern, "POST /v1/sessions/{session}/messages" rather than the path (e.g. for
  // the name of the request's span in traces and logs; HEAD on a GET route is "HEAD ...").
  // Made once per route when it is added, not per request.
  using Matched = std::function<void(const Request& request, const std::string& route_name)>;

  void add(std::string method, std::string pattern, Handler handler);
  void label_misses(Label label) { label_misses_ = std::move(label); }
  void on_match(Matched matched) { matched_ = std::move(matched); }
  Response dispatch(Request& request) const;

 private:
  struct Route {
    std::string method;
    std::string pattern;
    std::vector<std::string> segments;  // "{x}" segments capture
    std::string name;                   // "METHOD pattern"
    std::string head_name;              // "HEAD pattern" for a GET route, else empty
    Handler handler;
  };
  static bool match(const Route& route, const std::vector<std::string_view>& path, Headers* params);

  std::vector<Route> routes_;
  Label label_misses_;
  Matched matched_;
};

}  // namespace supportd::http
