// The server under test, from its base URL: "http://host[:port][/prefix]" (a trailing "/v1"
// or "/" is dropped, so the OpenAI convention of base URLs ending in /v1 works too).
// Thread-safety: plain data.
#pragma once

#include <string>

#include "core/status.h"

namespace supportd::bench {

struct Target {
  std::string host;
  std::string port = "80";
  std::string prefix;  // path prefix without a trailing slash, e.g. "" or "/llm"

  std::string path(const std::string& api_path) const { return prefix + api_path; }
};

// kInvalidArgument for malformed URLs; kUnsupported for https (put a TLS-terminating proxy
// on loopback in front of such a server).
Result<Target> parse_target(const std::string& url);

}  // namespace supportd::bench
