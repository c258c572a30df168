// Tracing for the whole process: starts each request's trace (continuing the caller's
// traceparent, or a new one sampled by ratio), and when the request ends decides what to keep:
// sampled traces go to the exporter; failed or slow ones go to the exporter too, whatever the
// sampler said, and to the ring behind GET /v1/traces, and a slow one writes its slow-request
// log line. Unkept spans are freed.
// Thread-safety: every method may be called from any thread; shutdown() once, at the end.
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "obs/metrics.h"
#include "obs/trace/otlp_exporter.h"
#include "obs/trace/request_trace.h"
#include "obs/trace/sampling.h"
#include "obs/trace/trace_ring.h"

namespace supportd::obs::trace {

struct TracerOptions {
  double sample_ratio = 1.0;  // --trace-sample: 0..1
  double slow_ms = 1000;      // --trace-slow-ms: slower requests are kept and logged; 0: none
  std::size_t ring_traces = 256;
  std::size_t ring_bytes = 16u << 20;
  std::optional<ExporterOptions> exporter;  // none: nothing is exported
  Resource resource;
  InstrumentationScope scope;
};

class Tracer {
 public:
  // REQUIRES: 0 <= sample_ratio <= 1, ring_traces > 0. `registry` may be null.
  Tracer(TracerOptions options, obs::Registry* registry);
  ~Tracer();  // shutdown(5 s) when not done yet

  // A request's trace with its first part open: a child of the caller's span when
  // `traceparent` is valid (with `tracestate`, when that is valid too), else a new trace.
  std::shared_ptr<RequestTrace> start(std::string_view traceparent, std::string_view tracestate);
  // A trace of its own (a new id, no parent), with its first part open, for work that follows
  // from `from` without being part of its request (a WebSocket message after the handshake
  // that opened the socket; its root span links to `from`). Sampled as `from` was, so that a
  // socket's messages are all sampled or none.
  std::shared_ptr<RequestTrace> start_following(const SpanContext& from);

  // Ends `trace` at once, deciding once, when ending now with `latency_ms` (the slow rule's
  // latency) sends it nowhere or to the exporter alone, and true comes back; the decision is
  // counted as finish() would count it and the caller's part ended without a finish:
  // - nothing of it will be read (dropped by the decision, or sampled with no exporter or with
  //   a full export queue): nothing is encoded; a refusal is counted for the trace's spans and
  //   `own.count` more (spans the caller made and will not add);
  // - sampled, neither failed nor slow, with room in the queue: its spans are queued, then the
  //   caller's `own` written straight into the export batch (never made as records).
  // Otherwise (failed or slow: kept whole; or its caller's part is not its last, so it may
  // still fail: ends_with_this_part) false, and nothing happened: the caller makes its spans as
  // records and ends its part. For the request's owner, at its end: the SERVER span of a
  // request that is dropped or only exported is never made as a record.
  bool end_early(RequestTrace& trace, double latency_ms, const OtlpExporter::OwnSpans& own);
  // The request ended (its last part): the keep decision, the ring, the slow-request line,
  // the exporter. Called by RequestTrace::end_part.
  void finish(std::shared_ptr<RequestTrace> trace);
  // The same, done later on the exporter's thread (RequestTrace::end_part_elsewhere).
  void finish_later(std::shared_ptr<RequestTrace> trace);

  const TraceRing& ring() const { return ring_; }
  const TracerOptions& options() const { return options_; }
  const OtlpExporter& exporter() const { return *exporter_; }

  // Finishes what is pending and flushes the exporter within `bound`. Idempotent.
  void shutdown(std::chrono::milliseconds bound);

 private:
  void finish_pending();

  const TracerOptions options_;
  const RatioSampler sampler_;
  TraceRing ring_;
  std::array<obs::Counter*, 4> traces_{};  // supportd_traces_total{kept}, by KeepReason

  std::mutex pending_mutex_;
  std::vector<std::shared_ptr<RequestTrace>> pending_;  // guarded by pending_mutex_

  std::unique_ptr<OtlpExporter> exporter_;  // last: its thread calls finish_pending()
};

}  // namespace supportd::obs::trace
