// Spans as an OTLP ExportTraceServiceRequest in protobuf (opentelemetry-proto:
// collector/trace/v1/trace_service.proto, trace/v1/trace.proto, common/v1/common.proto,
// resource/v1/resource.proto): one ResourceSpans for the process, one ScopeSpans for supportd,
// every span of every trace given. Fields at their proto3 defaults are left out, as the
// official encoders do.
// A trace's spans can be encoded on their own (encode_spans, where the trace ends, while its
// memory is hot) and the request built later around the bytes of many traces joined: what
// the exporter does, so that its queue holds bytes, not span objects. A batch keeps room for
// the request's head in front of its spans, and the head is written there when the batch
// leaves (ExportRequestHead::finish): the spans' bytes are never copied into a second buffer.
// Pure functions: safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "obs/trace/protobuf_writer.h"
#include "obs/trace/resource.h"
#include "obs/trace/span.h"

namespace supportd::obs::trace {

// The spans of one request, as the exporter queues them.
struct ExportedTrace {
  TraceId trace_id;
  SpanId root_id;  // the span whose parent (if any) is the remote caller's
  bool remote_parent = false;
  std::uint8_t flags = 0;  // W3C trace flags propagated with the trace
  std::string tracestate;
  std::vector<SpanRecord> spans;
};

struct InstrumentationScope {
  std::string name = "supportd";
  std::string version;
};

std::string encode_export_request(const Resource& resource, const InstrumentationScope& scope,
                                  const std::vector<ExportedTrace>& traces);

// Appends `trace`'s spans to `out` as the repeated `spans` field of a ScopeSpans; returns how
// many were written.
std::size_t encode_spans(const ExportedTrace& trace, ProtobufWriter& out);

// One span written field by field straight into `out` (as one of encode_spans()'s), for a span
// nobody but the exporter reads: its attributes are encoded as they are set, never held in a
// SpanRecord (a SERVER span's dozen attributes were a list, its values' copies and a move into
// the trace, on every request's path). encode_spans() writes each SpanRecord through it.
// Set the attributes, then events and the link, then finish() once; the status may be set at
// any time before finish().
class SpanEncoder {
 public:
  SpanEncoder(ProtobufWriter& out, const ExportedTrace& trace, const SpanId& span_id,
              const SpanId& parent_id, std::string_view name, SpanKind kind, std::int64_t start_ns,
              std::int64_t end_ns);
  SpanEncoder(const SpanEncoder&) = delete;
  SpanEncoder& operator=(const SpanEncoder&) = delete;

  // As SpanRecord's: an attribute (keys as there, string literals or other lasting text).
  void set(std::string_view key, std::string_view value);
  void set(std::string_view key, const char* value) { set(key, std::string_view(value)); }
  void set(std::string_view key, std::int64_t value);
  void set(std::string_view key, int value) { set(key, static_cast<std::int64_t>(value)); }
  void set(std::string_view key, const AttributeValue& value);
  // As SpanRecord::fail: status error with `message` (written by finish()), and error.type.
  void fail(std::string_view error_type, std::string_view message);
  void event(std::int64_t time_ns, std::string_view name,
             const std::vector<Attribute>& attributes = {});
  void link(const SpanLink& link);
  void status(StatusCode code, std::string_view message) {
    status_ = code;
    status_message_ = message;
  }
  // The status and the flags, then the span's length. REQUIRES: once, last.
  void finish();

 private:
  ProtobufWriter& out_;
  const std::size_t message_;  // begin()'s marker
  const bool remote_;          // the span's parent is the remote caller's
  const std::uint8_t flags_;
  StatusCode status_ = StatusCode::kUnset;
  std::string_view status_message_;
};

// The request around `spans`: the bytes of one or more encode_spans() calls, joined.
std::string encode_export_request(const Resource& resource, const InstrumentationScope& scope,
                                  std::string_view spans);

// The request's head for one resource and scope (what comes before the spans: the resource, the
// scope and the lengths around them), their fields encoded once.
class ExportRequestHead {
 public:
  ExportRequestHead(const Resource& resource, const InstrumentationScope& scope);
  // The most bytes the head takes: the room a batch keeps in front of its spans.
  std::size_t room() const;
  // `batch` holds room() bytes, then the bytes of encode_spans() calls: writes the head at the
  // end of that room and returns the whole request, a view into `batch`.
  // REQUIRES: batch.size() >= room().
  std::string_view finish(std::string& batch) const;

 private:
  std::string resource_;  // Resource's fields
  std::string scope_;     // InstrumentationScope's fields
};

}  // namespace supportd::obs::trace
