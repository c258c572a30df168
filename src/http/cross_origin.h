// Which other sites' pages may call the server (the chat widget embedded on a business's own
// pages): Cross-Origin Resource Sharing, the Fetch standard's protocol, for the routes meant
// for them, and the same-origin rule for every other route (browsers send a form's POST and a
// WebSocket handshake to any site without asking, so the server checks their Origin itself).
// Requests without an Origin header (curl, SDKs, other servers) pass untouched.
// Thread-safety: immutable after parse(); every method may be called from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "http/message.h"
#include "http/router.h"

namespace supportd::http {

class CrossOrigin {
 public:
  // Any origin (the default: the widget is meant to be embedded anywhere).
  CrossOrigin() = default;
  // "*" (any site), "none" (only our own pages), or a comma-separated list of origins such as
  // "https://shop.example.com, http://localhost:3000". Errors name the entry that is wrong.
  static Result<CrossOrigin> parse(std::string_view origins);

  // A route other sites' pages may call: a request from an origin not allowed gets 403; an
  // allowed one gets the CORS headers on its response (deferred and streamed ones too).
  Router::Handler open(Router::Handler handler) const;
  // The answer to OPTIONS on such a route, whose methods are `methods` ("GET, POST"): the
  // preflight a browser sends before a request with a JSON body or an Authorization header.
  Response preflight(const Request& request, const std::string& methods) const;
  // A route only our own pages (and tools without an Origin) call: another site's page gets
  // 403, unless its origin is listed by name (a "*." pattern does not count).
  Router::Handler same_site(Router::Handler handler) const;

  // An error answered before any route's policy ran (no such path, a method not allowed, a
  // body over the limit): the CORS headers that let an allowed page read it, instead of
  // seeing a network error. Nothing for a request without an allowed Origin.
  void label_error(const Request& request, Response& response) const;

  // True when pages of `origin` may call the open routes ("*" or listed).
  bool allows(std::string_view origin) const;
  // True when `origin` itself is in the list (not only matched by a "*." pattern).
  bool lists_by_name(std::string_view origin) const;
  // "*", "none" or the list, for logs.
  std::string describe() const;

 private:
  // Null when the request may go on; otherwise the 403 to answer.
  std::optional<Response> refusal(const Request& request, bool open_route) const;
  // Access-Control-Allow-Origin for a page of `origin` (none without one), and Vary: Origin
  // when the answer depends on it (a list, not "*").
  void allow_origin(Response& response, std::string_view origin) const;

  bool any_ = true;
  std::vector<std::string> origins_;  // normalized: lower-case scheme and host, no default port
};

// True when the request's Origin header names the site the request was sent to (its Host, or
// the X-Forwarded-Host a reverse proxy set). False without an Origin header.
bool same_origin(const Request& request);

}  // namespace supportd::http
