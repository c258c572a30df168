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

  void add(std::string method, std::string pattern, Handler handler);
  Response dispatch(Request& request) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;  // "{x}" segments capture
    Handler handler;
  };
  static bool match(const Route& route, const std::vector<std::string_view>& path, Headers* params);

  std::vector<Route> routes_;
};

}  // namespace supportd::http
