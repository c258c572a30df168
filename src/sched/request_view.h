// What the scheduling policies see of one request, waiting or running, and of the engine's
// pace: plain data the engine fills from its own records just before it asks
// (sched/preemption.h, sched/promises.h, sched/deadlines.h, sched/outlook.h), so that every
// decision runs, and is tested, without a model.
// Thread-safety: plain values; a view is a copy, true at the moment it was taken.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "sched/priority.h"

namespace supportd::sched {

using Clock = std::chrono::steady_clock;

struct RequestView {
  std::uint64_t id = 0;
  Priority priority = Priority::kNormal;  // its own class (aging left to the policy)
  Clock::time_point submitted;
  Clock::time_point admitted;                 // its first start; the epoch when never started
  std::optional<Clock::time_point> deadline;  // the latest time it may start
  bool has_first_token = false;
  bool streaming = true;  // not finished yet (a running one may finish during a step)
  int preemptions = 0;    // times it was paused for another request
  int cells = 0;          // KV cells it needs to run to completion
  // Its work in tokens: what is left, and what the engine computes for the whole request.
  std::size_t prompt_left = 0;      // prompt tokens whose KV is not computed yet
  int answer_left = 0;              // answer tokens it may still generate
  std::size_t prompt_computed = 0;  // prompt tokens the engine computes (not taken from a cache)
  int answer_max = 0;               // answer tokens it may generate in all

  // Accepted with a deadline and without its first token yet: it was promised a start by then.
  bool promised() const { return deadline && !has_first_token; }
};

// The engine's pace: how many steps a request's work takes, and how long a step lasts.
struct Pace {
  double step_seconds = 0;  // recent mean; 0 until a step was measured
  int prompt_chunk = 1;     // prompt tokens one step computes at most for a sequence
  // Steps for `prompt` tokens in chunks and `answer` tokens (at least one) decoded.
  double steps(std::size_t prompt, int answer) const {
    const auto chunk = static_cast<std::size_t>(std::max(prompt_chunk, 1));
    return static_cast<double>((prompt + chunk - 1) / chunk) + std::max(answer, 1);
  }
  // Steps a request still needs: its prompt chunks and answer tokens left.
  double steps_left(const RequestView& request) const {
    return steps(request.prompt_left, request.answer_left);
  }
  // Steps a whole request takes: the prompt tokens it computes and all its answer tokens.
  double service_steps(const RequestView& request) const {
    return steps(request.prompt_computed, request.answer_max);
  }
};

// The time `seconds` after `now`.
inline Clock::time_point seconds_after(Clock::time_point now, double seconds) {
  return now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

}  // namespace supportd::sched
