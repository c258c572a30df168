// One request's spans until it ends (see request_trace.h).
#include "obs/trace/request_trace.h"

#include "obs/trace/tracer.h"

namespace supportd::obs::trace {
namespace {

std::int64_t nanoseconds(std::chrono::steady_clock::time_point at) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
}

// Unix nanoseconds at the steady instant `at`: the system clock's offset from the steady clock,
// read again when a second has passed since the last reading (each reading is a clock call on
// every request's path otherwise). The offset is stored before the time of its reading, so a
// thread that sees a recent reading sees its offset (or a later one).
std::int64_t unix_ns_at(std::chrono::steady_clock::time_point at) {
  static std::atomic<std::int64_t> offset{0};
  static std::atomic<std::int64_t> read_at{-1};  // never yet (the steady clock counts up from 0)
  constexpr std::int64_t kRereadAfter = 1'000'000'000;
  const std::int64_t steady = nanoseconds(at);
  const std::int64_t last = read_at.load(std::memory_order_acquire);
  if (last < 0 || steady < last || steady - last > kRereadAfter) {
    const auto system = std::chrono::system_clock::now();
    const auto now = std::chrono::steady_clock::now();
    offset.store(
        std::chrono::duration_cast<std::chrono::nanoseconds>(system.time_since_epoch()).count() -
            nanoseconds(now),
        std::memory_order_relaxed);
    read_at.store(nanoseconds(now), std::memory_order_release);
  }
  return steady + offset.load(std::memory_order_relaxed);
}

}  // namespace

RequestTrace::RequestTrace(Tracer* tracer, TraceId trace_id, SpanId root_id,
                           std::optional<SpanContext> parent, bool sampled)
    : tracer_(tracer),
      trace_id_(trace_id),
      root_id_(root_id),
      parent_(std::move(parent)),
      sampled_(sampled),
      tracestate_(parent_ ? parent_->tracestate : std::string()),
      anchor_(std::chrono::steady_clock::now()),
      anchor_unix_ns_(unix_ns_at(anchor_)) {
  spans_.reserve(4);
}

std::string RequestTrace::traceparent() const {
  return format_traceparent(trace_id_, root_id_, sampled_ ? kSampledFlag : 0);
}

void RequestTrace::set_route(std::string_view route) {
  std::lock_guard lock(mutex_);
  route_.assign(route);
}

std::string RequestTrace::route() const {
  std::lock_guard lock(mutex_);
  return route_;
}

void RequestTrace::set_tenant(std::string tenant) {
  std::lock_guard lock(mutex_);
  tenant_ = std::move(tenant);
}

std::string RequestTrace::tenant() const {
  std::lock_guard lock(mutex_);
  return tenant_;
}

RequestTrace::Labels RequestTrace::labels() const {
  std::lock_guard lock(mutex_);
  return {route_, tenant_};
}

SpanRecord RequestTrace::begin_span(std::string name, SpanId parent, SpanKind kind,
                                    std::chrono::steady_clock::time_point at) const {
  SpanRecord span;
  span.span_id = random_span_id();
  span.parent_id = parent.empty() ? root_id_ : parent;
  span.name = std::move(name);
  span.kind = kind;
  span.start_ns = unix_ns(at);
  return span;
}

SpanRecord RequestTrace::begin_root(std::string name, SpanKind kind) const {
  SpanRecord span;
  span.span_id = root_id_;
  span.parent_id = remote_parent();
  span.name = std::move(name);
  span.kind = kind;
  span.start_ns = anchor_unix_ns_;
  return span;
}

void RequestTrace::add(SpanRecord span) {
  if (span.status == StatusCode::kError) failed_.store(true, std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  if (spans_.size() >= kMaxSpans) {
    ++dropped_;
    return;
  }
  spans_.push_back(std::move(span));
}

void RequestTrace::at_end(std::function<void(RequestTrace&)> hook) {
  std::lock_guard lock(mutex_);
  end_hooks_.push_back(std::move(hook));
  has_end_hooks_.store(true, std::memory_order_release);
}

void RequestTrace::end_part() {
  if (parts_.fetch_sub(1, std::memory_order_acq_rel) == 1) tracer_->finish(shared_from_this());
}

void RequestTrace::end_part_elsewhere() {
  if (parts_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    tracer_->finish_later(shared_from_this());
  }
}

std::vector<SpanRecord> RequestTrace::take_spans() {
  std::vector<std::function<void(RequestTrace&)>> hooks;
  {
    std::lock_guard lock(mutex_);
    if (end_hooks_.empty()) return std::move(spans_);
    hooks.swap(end_hooks_);
  }
  for (auto& hook : hooks)  // they add spans: taken after them
    hook(*this);
  std::lock_guard lock(mutex_);
  return std::move(spans_);
}

std::size_t RequestTrace::span_count() const {
  std::lock_guard lock(mutex_);
  return spans_.size();
}

std::size_t RequestTrace::dropped_spans() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

}  // namespace supportd::obs::trace
