// The ring of kept traces (see trace_ring.h).
#include "obs/trace/trace_ring.h"

namespace supportd::obs::trace {
namespace {

std::size_t value_bytes(const AttributeValue& value) {
  if (const std::string* text = value.if_text()) return text->capacity();
  if (value.type() != AttributeValue::Type::kTexts) return 0;
  std::size_t bytes = value.texts().capacity() * sizeof(std::string);
  for (const auto& item : value.texts())
    bytes += item.capacity();
  return bytes;
}

std::size_t attribute_bytes(const std::vector<Attribute>& attributes) {
  std::size_t bytes = attributes.capacity() * sizeof(Attribute);
  for (const auto& a : attributes)
    bytes += value_bytes(a.value);
  return bytes;
}

}  // namespace

std::size_t estimated_bytes(const KeptTrace& trace) {
  std::size_t bytes = sizeof(KeptTrace) + trace.name.capacity() + trace.error_type.capacity() +
                      trace.request_id.capacity() + trace.tenant.capacity() +
                      trace.spans.capacity() * sizeof(SpanRecord);
  for (const auto& span : trace.spans) {
    bytes += span.name.capacity() + span.status_message.capacity() +
             attribute_bytes(span.attributes) + span.events.capacity() * sizeof(SpanEvent);
    for (const auto& event : span.events)
      bytes += attribute_bytes(event.attributes);
  }
  return bytes;
}

TraceRing::TraceRing(std::size_t capacity, std::size_t max_bytes)
    : capacity_(capacity), max_bytes_(max_bytes) {}

void TraceRing::add(std::shared_ptr<const KeptTrace> trace) {
  const std::size_t bytes = estimated_bytes(*trace);
  std::lock_guard lock(mutex_);
  entries_.push_back({std::move(trace), bytes});
  bytes_ += bytes;
  // The newest always stays, even alone over the byte bound (its spans are bounded).
  while (entries_.size() > capacity_ || (entries_.size() > 1 && bytes_ > max_bytes_)) {
    bytes_ -= entries_.front().bytes;
    entries_.pop_front();
  }
}

std::vector<std::shared_ptr<const KeptTrace>> TraceRing::recent(std::size_t limit) const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<const KeptTrace>> out;
  for (auto it = entries_.rbegin(); it != entries_.rend() && out.size() < limit; ++it)
    out.push_back(it->trace);
  return out;
}

std::shared_ptr<const KeptTrace> TraceRing::find(const TraceId& id) const {
  std::lock_guard lock(mutex_);
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->trace->trace_id == id) return it->trace;
  }
  return nullptr;
}

std::size_t TraceRing::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

std::size_t TraceRing::bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

}  // namespace supportd::obs::trace
