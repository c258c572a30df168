// A plain-HTTP URL split into what a client connects to: host, port and path. Used by the
// clients supportd makes (the upstream engine, the OTLP exporter).
// Pure function: safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace supportd {

struct HttpUrl {
  std::string host;  // without brackets for IPv6 literals
  std::string port = "80";
  std::string path;  // "" or starting with '/', as given (trailing slashes kept)
};

// "http://host[:port][/path]". https is refused (kUnsupported: supportd has no TLS client; put a
// TLS-terminating proxy on loopback in front); anything else is invalid_argument naming `what`
// (the option the URL came from).
Result<HttpUrl> parse_http_url(std::string_view url, std::string_view what);

}  // namespace supportd
