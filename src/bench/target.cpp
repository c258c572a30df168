// Parsing the target URL (target.h): http:// only (https and credentials refused with a hint),
// host (IPv6 in brackets), port, path prefix.
#include "bench/target.h"

#include <algorithm>
#include <cctype>

namespace supportd::bench {

Result<Target> parse_target(const std::string& url) {
  constexpr std::string_view kScheme = "http://";
  if (url.rfind("https://", 0) == 0) {
    return Error::make(ErrorCode::kUnsupported,
                       "--url " + url +
                           ": https is not supported; use http:// (for a TLS "
                           "server, a TLS-terminating proxy on loopback)");
  }
  if (url.rfind(kScheme, 0) != 0)
    return Error::invalid("--url " + url + ": must start with http://", "url");
  Target target;
  const std::string rest = url.substr(kScheme.size());
  const std::size_t slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) target.prefix = rest.substr(slash);
  while (!target.prefix.empty() && target.prefix.back() == '/')
    target.prefix.pop_back();
  if (target.prefix.ends_with("/v1")) target.prefix.resize(target.prefix.size() - 3);
  if (authority.find('@') != std::string::npos)
    return Error::invalid("--url " + url +
                              ": credentials in the URL are not supported; use "
                              "--api-key",
                          "url");
  const std::size_t bracket = authority.find(']');
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string::npos && (bracket == std::string::npos || colon > bracket)) {
    target.port = authority.substr(colon + 1);
    authority.resize(colon);
    if (target.port.empty() ||
        !std::all_of(target.port.begin(), target.port.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; }) ||
        std::stoul(target.port.substr(0, 6)) > 65535) {
      return Error::invalid("--url " + url + ": the port must be a number up to 65535", "url");
    }
  }
  if (authority.size() >= 2 && authority.front() == '[' && authority.back() == ']')
    authority = authority.substr(1, authority.size() - 2);
  if (authority.empty()) return Error::invalid("--url " + url + ": no host", "url");
  target.host = authority;
  return target;
}

}  // namespace supportd::bench
