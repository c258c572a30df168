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

  // Ends `trace` at once when nothing of it will be read if it ends now with `latency_ms` (the
  // slow rule's latency): dropped by the decision, or sampled only to be refused by the
  // exporter (a full queue) or to go nowhere (no exporter). Then the decision is counted as
  // finish() would count it, a refusal counted for the trace's spans and the caller's
  // `own_spans` (spans it made and will not add), the caller's part is ended without a finish,
  // and true comes back: the caller neither builds its spans' attributes nor adds them. A failed
  // or slow trace is kept whole, and a trace whose caller's part is not its last
  // (ends_with_this_part) may still fail: false, and nothing happened. For the request's owner,
  // at its end: a dropped request's SERVER span is never built, added or taken back.
  bool end_unread(RequestTrace& trace, double latency_ms, std::size_t own_spans);
  // Ends `trace` at once when, ending now with `latency_ms`, it goes to the exporter and
  // nowhere else (sampled, neither failed nor slow): its spans and the caller's `own` (spans
  // the caller writes straight into the export batch, never made as records) are queued, the
  // decision counted as finish() would count it, the caller's part ended without a finish, and
  // true comes back. Otherwise (its part is not the last, or the trace is kept, logged or
  // dropped) false, and nothing happened: the caller makes its spans as records. For the
  // request's owner, at its end, after end_unread: the SERVER span of a request that is only
  // exported is encoded where it is made.
  bool end_exported(RequestTrace& trace, double latency_ms, const OtlpExporter::OwnSpans& own);
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
