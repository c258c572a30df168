// Times the desk's pipeline stages: the one place a stage's time is recorded, into the answer's
// `timings` (stage -> milliseconds, in order) and the supportd_desk_stage_seconds histogram.
// Every stage of a turn (desk/turn/) and both fast paths (Desk::answer_from_faq,
// Desk::answer_from_cache) go through it; a tracing span per stage belongs here too.
// Thread-safety: none; one timer belongs to one turn, whose stages run one at a time.
#pragma once

#include <chrono>

#include "desk/answer.h"
#include "desk/desk_metrics.h"

namespace supportd::desk {

class StageTimer {
 public:
  using Clock = std::chrono::steady_clock;

  // Starts timing the stage `name` (a string literal: it must outlive the timer).
  void start(const char* name) {
    name_ = name;
    started_ = Clock::now();
  }
  // Records the running stage's time in `answer` and `metrics`, once; nothing when none runs.
  void stop(Answer& answer, DeskMetrics& metrics) {
    if (name_ == nullptr) return;
    const double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    answer.timings.emplace_back(name_, seconds * 1e3);
    metrics.stage(name_, seconds);
    name_ = nullptr;
  }
  // Forgets the running stage without recording it (it did not apply to this turn).
  void drop() { name_ = nullptr; }

 private:
  const char* name_ = nullptr;  // the stage running now, if any
  Clock::time_point started_;
};

}  // namespace supportd::desk
