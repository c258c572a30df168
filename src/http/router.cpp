// Router: routes kept in the order added, matched segment by segment with {name} captures;
// 404 for an unknown path, 405 with Allow for a known path and another method.
#include "http/router.h"

namespace supportd::http {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> segments;
  std::size_t at = 0;
  while (at < path.size()) {
    if (path[at] == '/') {
      ++at;
      continue;
    }
    const std::size_t end = std::min(path.find('/', at), path.size());
    segments.push_back(path.substr(at, end - at));
    at = end;
  }
  return segments;
}

}  // namespace

void Router::add(std::string method, std::string pattern, Handler handler) {
  Route route{std::move(method), pattern, {}, {}, {}, std::move(handler)};
  route.name = route.method + " " + pattern;
  if (route.method == "GET") route.head_name = "HEAD " + pattern;
  for (auto segment : split_path(pattern))
    route.segments.emplace_back(segment);
  routes_.push_back(std::move(route));
}

bool Router::match(const Route& route, const std::vector<std::string_view>& path, Headers* params) {
  if (route.segments.size() != path.size()) return false;
  Headers bound;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const std::string& want = route.segments[i];
    if (want.size() > 2 && want.front() == '{' && want.back() == '}') {
      bound.emplace_back(want.substr(1, want.size() - 2), std::string(path[i]));
    } else if (want != path[i]) {
      return false;
    }
  }
  *params = std::move(bound);
  return true;
}

Response Router::dispatch(Request& request) const {
  const auto path = split_path(request.path);
  // HEAD is GET without the body (the connection leaves it out).
  const bool head = request.method == "HEAD";
  const std::string_view method = head ? std::string_view("GET") : std::string_view(request.method);
  std::string allowed;
  for (const auto& route : routes_) {
    Headers params;
    if (!match(route, path, &params)) continue;
    if (route.method == method) {
      request.params = std::move(params);
      if (matched_) matched_(request, head ? route.head_name : route.name);
      return route.handler(request);
    }
    allowed += (allowed.empty() ? "" : ", ") + route.method;
    if (route.method == "GET") allowed += ", HEAD";
  }
  Response miss;
  if (!allowed.empty()) {
    miss = error_response(405, "method " + request.method + " is not allowed on " + request.path,
                          "invalid_request_error", "method_not_allowed");
    miss.headers.emplace_back("Allow", allowed);
  } else {
    miss = error_response(404, "no such endpoint: " + request.path, "invalid_request_error",
                          "not_found");
  }
  if (label_misses_) label_misses_(request, miss);
  return miss;
}

}  // namespace supportd::http
