// Plain-HTTP URLs (see http_url.h).
#include "core/http_url.h"

#include <algorithm>

namespace supportd {

Result<HttpUrl> parse_http_url(std::string_view url, std::string_view what) {
  constexpr std::string_view kScheme = "http://";
  const std::string name(what);
  if (url.starts_with("https://")) {
    return Error::make(ErrorCode::kUnsupported,
                       name +
                           ": https is not supported; put a TLS-terminating proxy on loopback "
                           "in front of it, or use http://");
  }
  if (!url.starts_with(kScheme)) return Error::invalid(name + " must start with http://", name);
  HttpUrl parsed;
  std::string_view rest = url.substr(kScheme.size());
  const std::size_t slash = std::min(rest.find('/'), rest.size());
  std::string_view authority = rest.substr(0, slash);
  parsed.path = std::string(rest.substr(slash));
  const std::size_t bracket = authority.find(']');
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    parsed.port = std::string(authority.substr(colon + 1));
    authority = authority.substr(0, colon);
    const bool digits = !parsed.port.empty() && parsed.port.size() <= 5 &&
                        std::all_of(parsed.port.begin(), parsed.port.end(),
                                    [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoi(parsed.port) == 0 || std::stoi(parsed.port) > 65535) {
      return Error::invalid(name + " has an invalid port \"" + parsed.port + "\"", name);
    }
  }
  if (authority.size() >= 2 && authority.front() == '[' && authority.back() == ']')
    authority = authority.substr(1, authority.size() - 2);
  if (authority.empty()) return Error::invalid(name + " has no host", name);
  parsed.host = std::string(authority);
  return parsed;
}

}  // namespace supportd
