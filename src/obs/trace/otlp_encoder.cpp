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

void write_text_attribute(ProtobufWriter& w, int field, std::string_view key,
                          std::string_view text) {
  // The common case, a short text: every length fits a byte and is known before writing, so
  // nothing is measured or moved afterwards (a SERVER span has a dozen of these).
  const std::size_t any = 2 + text.size();            // AnyValue{string_value}
  const std::size_t pair = 2 + key.size() + 2 + any;  // KeyValue{key, value}
  if (pair < 0x80 && field < 16) {
    w.begin_sized(field, pair);
    w.bytes(kKey, key);
    w.begin_sized(kValue, any);
    w.bytes(kStringValue, text);
    return;
  }
  const std::size_t at = w.begin(field);
  w.bytes(kKey, key);
  const std::size_t value = w.begin(kValue);
  w.bytes(kStringValue, text);
  w.end(value);
  w.end(at);
}

void write_attribute(ProtobufWriter& w, int field, std::string_view key,
                     const AttributeValue& value) {
  if (const std::string* text = value.if_text()) return write_text_attribute(w, field, key, *text);
  const std::size_t pair = w.begin(field);
  w.bytes(kKey, key);
  write_value(w, kValue, value);
  w.end(pair);
}

}  // namespace

SpanEncoder::SpanEncoder(ProtobufWriter& out, const ExportedTrace& trace, const SpanId& span_id,
                         const SpanId& parent_id, std::string_view name, SpanKind kind,
                         std::int64_t start_ns, std::int64_t end_ns)
    : out_(out),
      message_(out.begin(kSpans)),
      remote_(trace.remote_parent && span_id == trace.root_id),
      flags_(trace.flags) {
  out_.bytes(kTraceId, id_bytes(trace.trace_id));
  out_.bytes(kSpanId, id_bytes(span_id));
  if (!trace.tracestate.empty()) out_.bytes(kTraceState, trace.tracestate);
  if (!parent_id.empty()) out_.bytes(kParentSpanId, id_bytes(parent_id));
  out_.bytes(kName, name);
  out_.varint(kKind, static_cast<std::uint64_t>(kind));
  out_.fixed64(kStartTime, static_cast<std::uint64_t>(start_ns));
  out_.fixed64(kEndTime, static_cast<std::uint64_t>(end_ns));
}

void SpanEncoder::set(std::string_view key, std::string_view value) {
  write_text_attribute(out_, kAttributes, key, value);
}

void SpanEncoder::set(std::string_view key, std::int64_t value) {
  write_attribute(out_, kAttributes, key, AttributeValue::of(value));
}

void SpanEncoder::set(std::string_view key, const AttributeValue& value) {
  write_attribute(out_, kAttributes, key, value);
}

void SpanEncoder::fail(std::string_view error_type, std::string_view message) {
  status(StatusCode::kError, message);
  set("error.type", error_type);
}

void SpanEncoder::event(std::int64_t time_ns, std::string_view name,
                        const std::vector<Attribute>& attributes) {
  const std::size_t e = out_.begin(kEvents);
  out_.fixed64(kEventTime, static_cast<std::uint64_t>(time_ns));
  out_.bytes(kEventName, name);
  for (const auto& attribute : attributes)
    write_attribute(out_, kEventAttributes, attribute.key, attribute.value);
  out_.end(e);
}

void SpanEncoder::link(const SpanLink& link) {
  const std::size_t at = out_.begin(kLinks);
  out_.bytes(kLinkTraceId, id_bytes(link.trace_id));
  out_.bytes(kLinkSpanId, id_bytes(link.span_id));
  out_.end(at);
}

void SpanEncoder::finish() {
  if (status_ != StatusCode::kUnset || !status_message_.empty()) {
    const std::size_t at = out_.begin(kStatus);
    if (!status_message_.empty()) out_.bytes(kStatusMessage, status_message_);
    if (status_ != StatusCode::kUnset)
      out_.varint(kStatusCode, static_cast<std::uint64_t>(status_));
    out_.end(at);
  }
  out_.fixed32(kFlags, flags_ | kHasIsRemote | (remote_ ? kIsRemote : 0));
  out_.end(message_);
}

std::size_t encode_spans(const ExportedTrace& trace, ProtobufWriter& out) {
  for (const auto& span : trace.spans) {
    SpanEncoder encoder(out, trace, span.span_id, span.parent_id, span.name, span.kind,
                        span.start_ns, span.end_ns);
    for (const auto& attribute : span.attributes)
      encoder.set(attribute.key, attribute.value);
    for (const auto& event : span.events)
      encoder.event(event.time_ns, event.name, event.attributes);
    if (span.link) encoder.link(*span.link);
    encoder.status(span.status, span.status_message);
    encoder.finish();
  }
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
