// The process's tracer (see tracer.h): start, the end-of-request decision, hand-off to the
// ring, the log and the exporter.
#include "obs/trace/tracer.h"

#include <algorithm>
#include <limits>

#include <spdlog/spdlog.h>

#include "obs/trace/current.h"
#include "obs/trace/slow_log.h"

namespace supportd::obs::trace {
namespace {

// The root's HTTP status, 0 without one.
int status_code(const SpanRecord& root) {
  const AttributeValue* value = root.find("http.response.status_code");
  const auto* code = value ? value->if_integer() : nullptr;
  return code ? static_cast<int>(*code) : 0;
}

// Why the request failed: the error.type of its first span with an error status, else its
// root's (a 4xx sets error.type without the error status), else empty.
std::string first_error(const std::vector<SpanRecord>& spans, const SpanRecord* root) {
  for (const auto& span : spans) {
    if (span.status != StatusCode::kError) continue;
    const AttributeValue* type = span.find("error.type");
    if (const auto* text = type ? type->if_text() : nullptr) return *text;
    return "error";
  }
  const AttributeValue* type = root ? root->find("error.type") : nullptr;
  const auto* text = type ? type->if_text() : nullptr;
  return text ? *text : std::string();
}

// The trace's ids and `spans`, as the exporter takes them.
ExportedTrace exported_of(const RequestTrace& trace, std::vector<SpanRecord> spans) {
  return {trace.trace_id(),          trace.root_id(),
          trace.has_remote_parent(), static_cast<std::uint8_t>(trace.sampled() ? kSampledFlag : 0),
          trace.tracestate(),        std::move(spans)};
}

}  // namespace

Tracer::Tracer(TracerOptions options, obs::Registry* registry)
    : options_(std::move(options)),
      sampler_(options_.sample_ratio),
      ring_(options_.ring_traces, options_.ring_bytes) {
  if (registry != nullptr) {
    auto& traces = registry->counter("supportd_traces_total",
                                     "Finished requests by what tracing kept of them: sampled, "
                                     "error or slow (kept whatever the sampler said), or dropped.",
                                     {"kept"});
    for (auto reason :
         {KeepReason::kDropped, KeepReason::kSampled, KeepReason::kError, KeepReason::kSlow})
      traces_[static_cast<int>(reason)] = &traces.with({keep_reason_name(reason)});
  }
  exporter_ = std::make_unique<OtlpExporter>(options_.exporter, options_.resource, options_.scope,
                                             registry, [this] { finish_pending(); });
}

Tracer::~Tracer() {
  shutdown(std::chrono::seconds(5));
}

std::shared_ptr<RequestTrace> Tracer::start(std::string_view traceparent,
                                            std::string_view tracestate) {
  std::optional<SpanContext> parent;
  if (!traceparent.empty()) parent = parse_traceparent(traceparent);
  if (parent && !tracestate.empty()) parent->tracestate = parse_tracestate(tracestate);
  const TraceId trace_id = parent ? parent->trace_id : random_trace_id();
  const bool sampled = sampler_.sample(parent ? &*parent : nullptr, trace_id);
  return std::make_shared<RequestTrace>(this, trace_id, random_span_id(), std::move(parent),
                                        sampled);
}

std::shared_ptr<RequestTrace> Tracer::start_following(const SpanContext& from) {
  return std::make_shared<RequestTrace>(this, random_trace_id(), random_span_id(), std::nullopt,
                                        from.sampled());
}

bool Tracer::end_early(RequestTrace& trace, double latency_ms, const OtlpExporter::OwnSpans& own) {
  if (!trace.ends_with_this_part()) return false;
  const KeepReason reason =
      decide_keep(trace.sampled(), trace.failed(), latency_ms, options_.slow_ms);
  if (reason != KeepReason::kDropped && reason != KeepReason::kSampled) return false;
  const bool exporting = reason == KeepReason::kSampled && exporter_->exporting();
  const std::size_t spans = exporting ? trace.span_count() + own.count : 0;
  const bool refused = exporting && exporter_->full(spans);
  if (!trace.end_part_unfinished()) return false;  // a part opened meanwhile: nothing happened
  if (obs::Counter* counter = traces_[static_cast<int>(reason)]) counter->increment();
  if (refused) {
    exporter_->refuse(spans);
  } else if (exporting) {
    exporter_->enqueue(exported_of(trace, trace.take_spans()), &own);  // a full queue counts
  }
  return true;
}

void Tracer::finish(std::shared_ptr<RequestTrace> trace) {
  std::vector<SpanRecord> spans = trace->take_spans();  // the end hooks' spans included
  const auto root = std::find_if(spans.begin(), spans.end(), [&](const SpanRecord& span) {
    return span.span_id == trace->root_id();
  });
  std::int64_t start = std::numeric_limits<std::int64_t>::max(), end = 0;
  for (const auto& span : spans) {
    start = std::min(start, span.start_ns);
    end = std::max(end, span.end_ns);
  }
  const bool failed = trace->failed();  // an error span marked it when it was added
  if (spans.empty()) start = end;
  const double duration_ms =
      root != spans.end() ? root->duration_ms() : static_cast<double>(end - start) / 1e6;
  const double latency_ms = trace->latency_ms() >= 0 ? trace->latency_ms() : duration_ms;
  const KeepReason reason = decide_keep(trace->sampled(), failed, latency_ms, options_.slow_ms);
  if (obs::Counter* counter = traces_[static_cast<int>(reason)]) counter->increment();
  if (reason == KeepReason::kDropped) return;

  // Exported first: the exporter encodes the spans at once (or refuses them when its queue is
  // full), so the ring can then take them without a copy. A vector's move keeps its elements
  // where they are: `root_span` stays valid.
  const SpanRecord* root_span = root != spans.end() ? &*root : nullptr;
  ExportedTrace exported = exported_of(*trace, std::move(spans));
  if (exporter_->exporting()) exporter_->enqueue(exported);
  if (reason != KeepReason::kError && reason != KeepReason::kSlow) return;
  auto kept = std::make_shared<KeptTrace>();
  kept->trace_id = trace->trace_id();
  kept->root_id = trace->root_id();
  kept->reason = reason;
  kept->name = root_span != nullptr ? root_span->name : std::string("request");
  kept->start_ns = root_span != nullptr ? root_span->start_ns : start;
  kept->duration_ms = duration_ms;
  kept->latency_ms = latency_ms;
  kept->status_code = root_span != nullptr ? status_code(*root_span) : 0;
  kept->error_type = first_error(exported.spans, root_span);
  kept->request_id = trace->request_id();
  kept->tenant = trace->tenant();
  kept->dropped_spans = trace->dropped_spans();
  kept->spans = std::move(exported.spans);
  if (reason == KeepReason::kSlow) {
    const Scope scope(trace.get(), trace->root_id());  // the line carries the request's ids
    spdlog::warn("{}", slow_request_line(*kept, options_.slow_ms));
  }
  ring_.add(std::move(kept));
}

void Tracer::finish_later(std::shared_ptr<RequestTrace> trace) {
  {
    std::lock_guard lock(pending_mutex_);
    pending_.push_back(std::move(trace));
  }
  exporter_->wake();
}

void Tracer::finish_pending() {
  std::vector<std::shared_ptr<RequestTrace>> pending;
  {
    std::lock_guard lock(pending_mutex_);
    pending.swap(pending_);
  }
  for (auto& trace : pending)
    finish(std::move(trace));
}

void Tracer::shutdown(std::chrono::milliseconds bound) {
  if (exporter_) exporter_->shutdown(bound);
  finish_pending();  // anything handed over after the exporter's thread ended
}

}  // namespace supportd::obs::trace
