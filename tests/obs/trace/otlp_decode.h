// Test helpers for OTLP: decode an ExportTraceServiceRequest with protoc against the official
// definitions (../shared/data/opentelemetry-proto), and a collector on loopback (supportd's own
// HTTP server) that records every POST and answers as the test says.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "http/server.h"

namespace supportd::testing {

// Why OTLP tests cannot run here (the definitions or protoc missing), or empty.
std::string otlp_decoding_unavailable();

// `protoc --decode=opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest` of `body`:
// the text format, or nullopt (with the reason in `error`) when protoc refuses it.
std::optional<std::string> decode_export_request(const std::string& body, std::string* error);

class TestCollector {
 public:
  struct Post {
    std::string path;
    std::string content_type;
    std::string body;
  };
  struct Answer {
    int status = 200;
    std::string retry_after;  // sent as Retry-After when not empty
  };

  TestCollector();
  ~TestCollector();
  std::string url() const;  // http://127.0.0.1:<port>
  // Answers for the next POSTs, in order; after them, 200.
  void answer_next(std::vector<Answer> answers);
  std::vector<Post> posts() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Post> posts_;     // guarded by mutex_
  std::deque<Answer> answers_;  // guarded by mutex_
  std::unique_ptr<http::Server> server_;
};

}  // namespace supportd::testing
