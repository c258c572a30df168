// CrossOrigin: parsing --cors-origins, matching an Origin (wildcards, default ports), the CORS
// headers and preflight answers for open routes, and refusing cross-site calls to the others.
#include "http/cross_origin.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "core/text.h"

namespace supportd::http {
namespace {

// Request headers other sites' pages may send: what the widget and OpenAI clients use.
constexpr const char* kAllowedHeaders =
    "Authorization, Content-Type, X-Api-Key, X-Priority, X-Timeout";
// Response headers their scripts may read beyond the safelisted ones.
constexpr const char* kExposedHeaders = "Retry-After, X-Supportd-Notice";
constexpr const char* kPreflightMaxAge = "600";

// The authority ("host" or "host:port") without the scheme's default port, lower case.
std::string authority_without_default_port(std::string_view authority, std::string_view scheme) {
  std::string out = lower_case(authority);
  const std::string default_port = scheme == "https" ? ":443" : ":80";
  if (out.size() > default_port.size() && out.ends_with(default_port))
    out.resize(out.size() - default_port.size());
  return out;
}

// An origin as browsers serialize it ("https://shop.example.com", "http://localhost:3000"), or
// nullopt when `text` is not one. A leading "*." on the host stands for any subdomain.
std::optional<std::string> normalize_origin(std::string_view text) {
  text = trim(text);
  if (text.ends_with('/')) text.remove_suffix(1);
  const std::size_t separator = text.find("://");
  if (separator == std::string_view::npos) return std::nullopt;
  const std::string scheme = lower_case(text.substr(0, separator));
  if (scheme != "http" && scheme != "https") return std::nullopt;
  const std::string_view authority = text.substr(separator + 3);
  if (authority.empty()) return std::nullopt;
  for (std::size_t i = 0; i < authority.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(authority[i]);
    const bool wildcard =
        c == '*' && i == 0 && authority.substr(0, 2) == "*." && authority.size() > 2;
    if (!(std::isalnum(c) || c == '.' || c == '-' || c == ':' || c == '[' || c == ']' || wildcard))
      return std::nullopt;
  }
  return scheme + "://" + authority_without_default_port(authority, scheme);
}

bool matches(const std::string& pattern, const std::string& origin) {
  const std::size_t star = pattern.find("://*.");
  if (star == std::string::npos) return pattern == origin;
  // "https://*.example.com" matches "https://a.example.com" and "https://a.b.example.com".
  const std::string scheme = pattern.substr(0, star + 3);
  const std::string suffix = pattern.substr(star + 4);  // ".example.com"
  return origin.starts_with(scheme) && origin.size() > scheme.size() + suffix.size() &&
         origin.ends_with(suffix);
}

Response refused(std::string_view origin, std::string_view why) {
  return error_response(403, fmt::format("pages of {} may not {}", origin, why),
                        "invalid_request_error", "origin_not_allowed");
}

}  // namespace

bool same_origin(const Request& request) {
  const std::string_view origin = request.header("origin");
  const std::size_t separator = origin.find("://");
  if (separator == std::string_view::npos) return false;
  const std::string scheme = lower_case(origin.substr(0, separator));
  const std::string ours = authority_without_default_port(origin.substr(separator + 3), scheme);
  for (const char* name : {"host", "x-forwarded-host"}) {
    std::string_view host = request.header(name);
    host = trim(host.substr(0, host.find(',')));  // a chain of proxies: the first is the client's
    if (!host.empty() && authority_without_default_port(host, scheme) == ours) return true;
  }
  return false;
}

Result<CrossOrigin> CrossOrigin::parse(std::string_view origins) {
  CrossOrigin policy;
  const std::string_view whole = trim(origins);
  if (whole == "*") return policy;
  policy.any_ = false;
  if (whole == "none" || whole.empty()) return policy;
  std::size_t at = 0;
  while (at <= origins.size()) {
    const std::size_t comma = std::min(origins.find(',', at), origins.size());
    const std::string_view entry = trim(origins.substr(at, comma - at));
    at = comma + 1;
    if (entry.empty()) continue;
    const auto normalized = normalize_origin(entry);
    if (!normalized) {
      return Error::invalid(fmt::format(
          "'{}' is not an origin: write scheme://host[:port], e.g. https://shop.example.com "
          "(or *.example.com after the scheme for its subdomains; '*' alone for any site, "
          "'none' for none)",
          entry));
    }
    policy.origins_.push_back(*normalized);
  }
  return policy;
}

bool CrossOrigin::allows(std::string_view origin) const {
  if (any_) return true;
  const auto normalized = normalize_origin(origin);
  if (!normalized || normalized->find('*') != std::string::npos) return false;
  return std::any_of(origins_.begin(), origins_.end(),
                     [&](const std::string& pattern) { return matches(pattern, *normalized); });
}

bool CrossOrigin::lists_by_name(std::string_view origin) const {
  const auto normalized = normalize_origin(origin);
  return normalized && std::find(origins_.begin(), origins_.end(), *normalized) != origins_.end() &&
         normalized->find('*') == std::string::npos;
}

std::string CrossOrigin::describe() const {
  if (any_) return "*";
  if (origins_.empty()) return "none";
  std::string out;
  for (const auto& origin : origins_)
    out += (out.empty() ? "" : ", ") + origin;
  return out;
}

std::optional<Response> CrossOrigin::refusal(const Request& request, bool open_route) const {
  const std::string_view origin = request.header("origin");
  if (origin.empty() || same_origin(request)) return std::nullopt;
  if (open_route) {
    if (allows(origin)) return std::nullopt;
    return refused(origin, "call this server (see --cors-origins)");
  }
  // Only origins listed by name, never "*" nor "*.example.com": a page elsewhere could
  // otherwise act as an agent in the browser of one (a form's POST needs no preflight, and
  // WebSockets know no CORS at all).
  if (lists_by_name(origin)) return std::nullopt;
  return refused(origin,
                 "call this endpoint: it is for this server's own pages (behind a "
                 "reverse proxy, pass the Host header or set X-Forwarded-Host)");
}

Router::Handler CrossOrigin::open(Router::Handler handler) const {
  return [policy = *this, handler = std::move(handler)](Request& request) {
    if (auto refusal = policy.refusal(request, true)) return std::move(*refusal);
    Response response = handler(request);
    const std::string_view origin = request.header("origin");
    policy.allow_origin(response, origin);
    if (!origin.empty())
      response.headers.emplace_back("Access-Control-Expose-Headers", kExposedHeaders);
    return response;
  };
}

Response CrossOrigin::preflight(const Request& request, const std::string& methods) const {
  const std::string_view origin = request.header("origin");
  if (origin.empty() || request.header("access-control-request-method").empty()) {
    Response response = Response::text(204, "");
    response.headers.emplace_back("Allow", methods + ", OPTIONS");
    return response;
  }
  if (auto refusal = this->refusal(request, true)) return std::move(*refusal);
  Response response = Response::text(204, "");
  allow_origin(response, origin);
  response.headers.emplace_back("Access-Control-Allow-Methods", methods);
  response.headers.emplace_back("Access-Control-Allow-Headers", kAllowedHeaders);
  response.headers.emplace_back("Access-Control-Max-Age", kPreflightMaxAge);
  // A public site's page calling a server on a private network (Chrome's Private Network Access).
  if (request.header("access-control-request-private-network") == "true")
    response.headers.emplace_back("Access-Control-Allow-Private-Network", "true");
  return response;
}

void CrossOrigin::label_error(const Request& request, Response& response) const {
  const std::string_view origin = request.header("origin");
  if (origin.empty() || same_origin(request) || !allows(origin)) return;
  allow_origin(response, origin);
  response.headers.emplace_back("Access-Control-Expose-Headers", kExposedHeaders);
}

void CrossOrigin::allow_origin(Response& response, std::string_view origin) const {
  if (!origin.empty()) {
    response.headers.emplace_back("Access-Control-Allow-Origin",
                                  any_ ? std::string("*") : std::string(origin));
  }
  if (!any_) response.headers.emplace_back("Vary", "Origin");  // the answer depends on it
}

Router::Handler CrossOrigin::same_site(Router::Handler handler) const {
  return [policy = *this, handler = std::move(handler)](Request& request) {
    if (auto refusal = policy.refusal(request, false)) return std::move(*refusal);
    return handler(request);
  };
}

}  // namespace supportd::http
