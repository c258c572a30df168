// Reading a running server's statistics for `supportd capacity --url`: one GET on loopback or
// anywhere plain HTTP reaches, bounded in time. Beast stays inside stats_client.cpp (through
// the load tester's HTTP client).
// Thread-safety: each call runs its own event loop on the caller's thread.
#pragma once

#include <string>

#include "core/status.h"

namespace supportd::plan {

// The body of GET `path` on the server at `url` ("http://host:port", a trailing /v1 is fine),
// with `api_key` as a bearer token when not empty, within `timeout_s` seconds.
// kInvalidArgument / kUnsupported for a malformed or https URL; kUnavailable naming the URL
// when the server cannot be reached, does not answer in time, or answers other than 200.
Result<std::string> http_get(const std::string& url, const std::string& path,
                             const std::string& api_key, double timeout_s);

}  // namespace supportd::plan
