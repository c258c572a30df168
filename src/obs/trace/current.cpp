// The thread's current span (see current.h).
#include "obs/trace/current.h"

namespace supportd::obs::trace {
namespace {

thread_local Current this_thread;

}  // namespace

const Current& current() {
  return this_thread;
}

Handoff capture() {
  if (this_thread.trace == nullptr) return {};
  return {this_thread.trace->shared_from_this(), this_thread.span};
}

Scope::Scope(RequestTrace* trace, SpanId span) : previous_(this_thread) {
  this_thread = {trace, span};
}

Scope::~Scope() {
  this_thread = previous_;
}

ScopedSpan::ScopedSpan(std::string_view name, SpanKind kind) : trace_(this_thread.trace) {
  if (trace_ == nullptr) return;
  span_ = trace_->begin_span(std::string(name), this_thread.span, kind);
  previous_ = this_thread;
  this_thread.span = span_.span_id;
}

ScopedSpan::~ScopedSpan() {
  if (trace_ == nullptr) return;
  this_thread = previous_;
  span_.end_ns = trace_->now_ns();
  trace_->add(std::move(span_));
}

}  // namespace supportd::obs::trace
