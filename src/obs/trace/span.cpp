// Span records (see span.h): status, lookups, kind names.
#include "obs/trace/span.h"

namespace supportd::obs::trace {

const char* span_kind_name(SpanKind kind) {
  switch (kind) {
    case SpanKind::kInternal: return "internal";
    case SpanKind::kServer: return "server";
    case SpanKind::kClient: return "client";
    case SpanKind::kProducer: return "producer";
    case SpanKind::kConsumer: return "consumer";
  }
  return "internal";
}

void SpanRecord::fail(std::string_view error_type, std::string_view message) {
  status = StatusCode::kError;
  status_message = std::string(message);
  set("error.type", error_type);
}

const AttributeValue* SpanRecord::find(std::string_view key) const {
  for (auto it = attributes.rbegin(); it != attributes.rend(); ++it) {
    if (key == it->key) return &it->value;
  }
  return nullptr;
}

}  // namespace supportd::obs::trace
