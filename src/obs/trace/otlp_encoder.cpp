// OTLP ExportTraceServiceRequest in protobuf (see otlp_encoder.h). Field numbers are those of
// the official .proto files, named here as they are there.
#include "obs/trace/otlp_encoder.h"

#include "obs/trace/protobuf_writer.h"

namespace supportd::obs::trace {
namespace {

// ExportTraceServiceRequest
constexpr int kResourceSpans = 1;
// ResourceSpans
constexpr int kResource = 1, kScopeSpans = 2;
// Resource
constexpr int kResourceAttributes = 1;
// ScopeSpans
constexpr int kScope = 1, kSpans = 2;
// InstrumentationScope
constexpr int kScopeName = 1, kScopeVersion = 2;
// Span
constexpr int kTraceId = 1, kSpanId = 2, kTraceState = 3, kParentSpanId = 4, kName = 5, kKind = 6,
              kStartTime = 7, kEndTime = 8, kAttributes = 9, kEvents = 11, kLinks = 13,
              kStatus = 15, kFlags = 16;
// Span.Event
constexpr int kEventTime = 1, kEventName = 2, kEventAttributes = 3;
// Span.Link
constexpr int kLinkTraceId = 1, kLinkSpanId = 2;
// Status
constexpr int kStatusMessage = 2, kStatusCode = 3;
// KeyValue
constexpr int kKey = 1, kValue = 2;
// AnyValue
constexpr int kStringValue = 1, kBoolValue = 2, kIntValue = 3, kDoubleValue = 4, kArrayValue = 5;
// ArrayValue
constexpr int kArrayValues = 1;
// SpanFlags
constexpr std::uint32_t kHasIsRemote = 0x100, kIsRemote = 0x200;

template <std::size_t N>
std::string_view id_bytes(const Id<N>& id) {
  return {reinterpret_cast<const char*>(id.bytes.data()), N};
}

void write_value(ProtobufWriter& w, int field, const AttributeValue& value) {
  const std::size_t any = w.begin(field);
  switch (value.type()) {
    case AttributeValue::Type::kText: w.bytes(kStringValue, value.text()); break;
    case AttributeValue::Type::kInteger: w.signed_varint(kIntValue, value.integer()); break;
    case AttributeValue::Type::kNumber: w.float64(kDoubleValue, value.number()); break;
    case AttributeValue::Type::kFlag: w.boolean(kBoolValue, value.flag()); break;
    case AttributeValue::Type::kTexts: {
      const std::size_t array = w.begin(kArrayValue);
      for (const auto& item : value.texts()) {
        const std::size_t element = w.begin(kArrayValues);
        w.bytes(kStringValue, item);
        w.end(element);
      }
      w.end(array);
      break;
    }
  }
  w.end(any);
}

void write_attribute(ProtobufWriter& w, int field, std::string_view key,
                     const AttributeValue& value) {
  // The common case, a short text: every length fits a byte and is known before writing, so
  // nothing is measured or moved afterwards (a SERVER span has a dozen of these).
  if (const std::string* text = value.if_text(); text != nullptr && field < 16) {
    const std::size_t any = 2 + text->size();           // AnyValue{string_value}
    const std::size_t pair = 2 + key.size() + 2 + any;  // KeyValue{key, value}
    if (pair < 0x80) {
      w.begin_sized(field, pair);
      w.bytes(kKey, key);
      w.begin_sized(kValue, any);
      w.bytes(kStringValue, *text);
      return;
    }
  }
  const std::size_t pair = w.begin(field);
  w.bytes(kKey, key);
  write_value(w, kValue, value);
  w.end(pair);
}

void write_span(ProtobufWriter& w, const ExportedTrace& trace, const SpanRecord& span) {
  const std::size_t message = w.begin(kSpans);
  w.bytes(kTraceId, id_bytes(trace.trace_id));
  w.bytes(kSpanId, id_bytes(span.span_id));
  if (!trace.tracestate.empty()) w.bytes(kTraceState, trace.tracestate);
  if (!span.parent_id.empty()) w.bytes(kParentSpanId, id_bytes(span.parent_id));
  w.bytes(kName, span.name);
  w.varint(kKind, static_cast<std::uint64_t>(span.kind));
  w.fixed64(kStartTime, static_cast<std::uint64_t>(span.start_ns));
  w.fixed64(kEndTime, static_cast<std::uint64_t>(span.end_ns));
  for (const auto& attribute : span.attributes)
    write_attribute(w, kAttributes, attribute.key, attribute.value);
  for (const auto& event : span.events) {
    const std::size_t e = w.begin(kEvents);
    w.fixed64(kEventTime, static_cast<std::uint64_t>(event.time_ns));
    w.bytes(kEventName, event.name);
    for (const auto& attribute : event.attributes)
      write_attribute(w, kEventAttributes, attribute.key, attribute.value);
    w.end(e);
  }
  if (span.link) {
    const std::size_t link = w.begin(kLinks);
    w.bytes(kLinkTraceId, id_bytes(span.link->trace_id));
    w.bytes(kLinkSpanId, id_bytes(span.link->span_id));
    w.end(link);
  }
  if (span.status != StatusCode::kUnset || !span.status_message.empty()) {
    const std::size_t status = w.begin(kStatus);
    if (!span.status_message.empty()) w.bytes(kStatusMessage, span.status_message);
    if (span.status != StatusCode::kUnset)
      w.varint(kStatusCode, static_cast<std::uint64_t>(span.status));
    w.end(status);
  }
  const bool remote = trace.remote_parent && span.span_id == trace.root_id;
  w.fixed32(kFlags, trace.flags | kHasIsRemote | (remote ? kIsRemote : 0));
  w.end(message);
}

}  // namespace

std::size_t encode_spans(const ExportedTrace& trace, ProtobufWriter& out) {
  for (const auto& span : trace.spans)
    write_span(out, trace, span);
  return trace.spans.size();
}

namespace {

// A field's key and a length prefix take at most 1 + 10 bytes (fields below 16, 64-bit lengths).
constexpr std::size_t kMaxHeader = 11;

}  // namespace

ExportRequestHead::ExportRequestHead(const Resource& resource, const InstrumentationScope& scope) {
  ProtobufWriter fields;
  for (const auto& [key, value] : resource.attributes)
    write_attribute(fields, kResourceAttributes, key, value);
  resource_ = std::string(fields.data());
  fields.clear();
  fields.bytes(kScopeName, scope.name);
  if (!scope.version.empty()) fields.bytes(kScopeVersion, scope.version);
  scope_ = std::string(fields.data());
}

std::size_t ExportRequestHead::room() const {
  return resource_.size() + scope_.size() + 4 * kMaxHeader;
}

std::string_view ExportRequestHead::finish(std::string& batch) const {
  const std::size_t spans = batch.size() - room();
  const std::size_t scope_spans =
      ProtobufWriter::header_size(kScope, scope_.size()) + scope_.size() + spans;
  const std::size_t resource_spans =
      ProtobufWriter::header_size(kResource, resource_.size()) + resource_.size() +
      ProtobufWriter::header_size(kScopeSpans, scope_spans) + scope_spans;
  ProtobufWriter head;
  head.begin_sized(kResourceSpans, resource_spans);
  head.begin_sized(kResource, resource_.size());
  head.encoded(resource_);
  head.begin_sized(kScopeSpans, scope_spans);
  head.begin_sized(kScope, scope_.size());
  head.encoded(scope_);
  const std::string_view bytes = head.data();
  const std::size_t at = room() - bytes.size();
  batch.replace(at, bytes.size(), bytes);
  return std::string_view(batch).substr(at);
}

std::string encode_export_request(const Resource& resource, const InstrumentationScope& scope,
                                  std::string_view spans) {
  const ExportRequestHead head(resource, scope);
  std::string request(head.room(), '\0');
  request.append(spans);
  return std::string(head.finish(request));
}

std::string encode_export_request(const Resource& resource, const InstrumentationScope& scope,
                                  const std::vector<ExportedTrace>& traces) {
  ProtobufWriter spans;
  for (const auto& trace : traces)
    encode_spans(trace, spans);
  return encode_export_request(resource, scope, spans.data());
}

}  // namespace supportd::obs::trace
