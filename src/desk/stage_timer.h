// Times the desk's pipeline stages: the one place a stage's time is recorded, into the answer's
// `timings` (stage -> milliseconds, in order), the supportd_desk_stage_seconds histogram, and,
// when the thread works for a traced request (obs/trace/current.h), a span named after the
// stage, child of the thread's current span. Every stage of a turn (desk/turn/) and both fast
// paths (Desk::answer_from_faq, Desk::answer_from_cache) go through it.
// Thread-safety: none; one timer belongs to one turn, whose stages run one at a time (a stage
// may stop on another thread than it started: generate).
#pragma once

#include <chrono>

#include "desk/answer.h"
#include "desk/desk_metrics.h"
#include "obs/trace/current.h"

namespace supportd::desk {

class StageTimer {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts timing the stage `name` (a string literal: it must outlive the timer), and its span
  // when the thread has a current request.
  void start(const char* name) {
    name_ = name;
    started_ = Clock::now();
    const obs::trace::Current& current = obs::trace::current();
    trace_ = current.trace != nullptr ? current.trace->shared_from_this() : nullptr;
    if (trace_)
      span_ = trace_->begin_span(name, current.span, obs::trace::SpanKind::kInternal, started_);
  }
  // The running stage's span (empty without a trace): the parent of what the stage does.
  obs::trace::SpanId span() const { return trace_ ? span_.span_id : obs::trace::SpanId{}; }
  obs::trace::RequestTrace* trace() const { return trace_.get(); }
  // Records the running stage's time in `answer` and `metrics`, and ends its span; once.
  // Nothing when none runs.
  void stop(Answer& answer, DeskMetrics& metrics) {
    if (name_ == nullptr) return;
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - started_).count();
    answer.timings.emplace_back(name_, seconds * 1e3);
    metrics.stage(name_, seconds);
    name_ = nullptr;
    if (trace_) {
      span_.end_ns = trace_->unix_ns(now);
      trace_->add(std::move(span_));
      trace_.reset();
    }
  }
  // Forgets the running stage without recording it (it did not apply to this turn).
  void drop() {
    name_ = nullptr;
    trace_.reset();
  }

 private:
  const char* name_ = nullptr;  // the stage running now, if any
  Clock::time_point started_;
  std::shared_ptr<obs::trace::RequestTrace> trace_;  // while a traced stage runs
  obs::trace::SpanRecord span_;
};

}  // namespace supportd::desk
