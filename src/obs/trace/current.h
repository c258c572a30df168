// The span a thread is working for, so that code deep in a request (a store call, a log line)
// can add a child span or name its trace without every signature carrying it. A request's
// owner sets it with a Scope while it runs the request on a thread; work handed to another
// thread carries a Handoff (capture()) and opens a Scope there.
// Thread-safety: each thread has its own current span; a Scope and a ScopedSpan belong to the
// thread that made them and must end on it, in reverse order of their making.
#pragma once

#include <memory>
#include <string_view>
#include <utility>

#include "obs/trace/request_trace.h"

namespace supportd::obs::trace {

// A request's trace and the span new children hang from. `trace` null: no request.
struct Current {
  RequestTrace* trace = nullptr;
  SpanId span;  // empty: the trace's root span
};

// This thread's current span.
const Current& current();

// What a thread hands over with work for the same request.
struct Handoff {
  std::shared_ptr<RequestTrace> trace;  // null: no request
  SpanId span;
};
// The current span, owned (the trace lives while the handoff does).
Handoff capture();

// Makes `span` of `trace` this thread's current span until the scope ends, then restores the
// previous one. A null trace clears it for the scope.
class Scope {
 public:
  Scope(RequestTrace* trace, SpanId span);
  explicit Scope(const Handoff& handoff) : Scope(handoff.trace.get(), handoff.span) {}
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Current previous_;
};

// A child of this thread's current span, current itself while it lives (spans made meanwhile
// on this thread are its children), added to the trace when it ends. Without a current
// request it does nothing, at the cost of one thread-local read.
class ScopedSpan {
 public:
  explicit ScopedSpan(std::string_view name, SpanKind kind = SpanKind::kInternal);
  ~ScopedSpan();
  ScopedSpan(const ScopedSpan&) = delete;
  ScopedSpan& operator=(const ScopedSpan&) = delete;

  bool active() const { return trace_ != nullptr; }
  // Sets an attribute; nothing when inactive.
  template <typename Value>
  void set(const char* key, Value&& value) {
    if (trace_ != nullptr) span_.set(key, std::forward<Value>(value));
  }
  // Error status and error.type; nothing when inactive.
  void fail(std::string_view error_type, std::string_view message) {
    if (trace_ != nullptr) span_.fail(error_type, message);
  }
  // The record being built. REQUIRES: active().
  SpanRecord& record() { return span_; }

 private:
  RequestTrace* trace_;
  Current previous_;
  SpanRecord span_;
};

}  // namespace supportd::obs::trace
