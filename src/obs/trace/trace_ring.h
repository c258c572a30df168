// The recent slow or failed requests, with their spans, for an operator without a tracing
// backend (GET /v1/traces, the dashboard's "Slowest requests" panel). Bounded in count and in
// (estimated) bytes: the oldest go first.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "obs/trace/sampling.h"
#include "obs/trace/span.h"

namespace supportd::obs::trace {

// One finished request the tracer kept, summarised for listing, with every span.
struct KeptTrace {
  TraceId trace_id;
  SpanId root_id;
  KeepReason reason = KeepReason::kSlow;
  std::string name;           // the root span's ("POST /v1/answer")
  std::int64_t start_ns = 0;  // Unix nanoseconds
  double duration_ms = 0;     // the root span's
  double latency_ms = 0;      // what the slow rule compared
  int status_code = 0;        // the HTTP status, 0 when there was none
  std::string error_type;     // the first failed span's error.type, empty when none failed
  std::string request_id;
  std::string tenant;
  std::size_t dropped_spans = 0;
  std::vector<SpanRecord> spans;  // in the order they ended
};

// Roughly how much memory a kept trace holds (its spans, attributes and strings).
std::size_t estimated_bytes(const KeptTrace& trace);

class TraceRing {
 public:
  // REQUIRES: capacity > 0.
  TraceRing(std::size_t capacity, std::size_t max_bytes);

  void add(std::shared_ptr<const KeptTrace> trace);
  // The newest first, at most `limit`.
  std::vector<std::shared_ptr<const KeptTrace>> recent(std::size_t limit) const;
  // The kept trace with this id, or null when it is not (or no longer) here.
  std::shared_ptr<const KeptTrace> find(const TraceId& id) const;
  std::size_t capacity() const { return capacity_; }
  std::size_t max_bytes() const { return max_bytes_; }
  std::size_t size() const;
  std::size_t bytes() const;  // the kept traces' estimated size

 private:
  struct Entry {
    std::shared_ptr<const KeptTrace> trace;
    std::size_t bytes;
  };
  const std::size_t capacity_;
  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::deque<Entry> entries_;  // guarded by mutex_; oldest first
  std::size_t bytes_ = 0;      // guarded by mutex_
};

}  // namespace supportd::obs::trace
