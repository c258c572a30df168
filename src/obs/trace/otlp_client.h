// The HTTP side of OTLP/HTTP: POSTs protobuf bodies to one collector URL over a kept-alive
// connection, every call bounded by a deadline (resolve, connect, write and read included).
// Boost.Beast stays inside otlp_client.cpp.
// Thread-safety: none; one thread (the exporter's) uses a client.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/http_url.h"
#include "core/status.h"

namespace supportd::obs::trace {

class OtlpClient {
 public:
  using Headers = std::vector<std::pair<std::string, std::string>>;

  // `url`: where to POST (e.g. http://collector:4318/v1/traces); `headers` go with every call.
  OtlpClient(HttpUrl url, Headers headers);
  ~OtlpClient();
  OtlpClient(const OtlpClient&) = delete;
  OtlpClient& operator=(const OtlpClient&) = delete;

  struct Reply {
    int status = 0;
    int retry_after_s = -1;  // the Retry-After header in seconds; -1 when absent or a date
    std::string body;
  };
  // POSTs `body` as application/x-protobuf. unavailable when the collector cannot be reached,
  // hangs up, or does not answer by `deadline`; a reused connection that went stale is
  // retried once on a fresh one.
  Result<Reply> post(std::string_view body, std::chrono::steady_clock::time_point deadline);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace supportd::obs::trace
