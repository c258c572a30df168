#include "sched/admission_control.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace supportd::sched {

AdmissionControl::AdmissionControl(AdmissionOptions options) : options_(options) {
  for (auto& w : waiting_)
    w.store(0);
}

std::optional<Refusal> AdmissionControl::enter(
    Priority priority, std::optional<std::chrono::steady_clock::time_point> deadline) {
  const int index = static_cast<int>(priority);
  const int limit = options_.queue_limit[index];
  const int now_waiting = waiting_[index].fetch_add(1) + 1;
  if (limit > 0 && now_waiting > limit) {
    waiting_[index].fetch_sub(1);
    return Refusal{Error::make(ErrorCode::kOverloaded,
                               fmt::format("the {} queue is full ({} waiting); try again later",
                                           priority_name(priority), limit)),
                   retry_after_for(priority)};
  }
  if (deadline) {
    const auto expected = expected_wait(priority);
    const auto now = std::chrono::steady_clock::now();
    if (now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(expected) >
        *deadline) {
      waiting_[index].fetch_sub(1);
      return Refusal{
          Error::make(ErrorCode::kDeadline,
                      fmt::format("the request cannot start before its deadline (expected wait "
                                  "{:.1f} s at the current service rate)",
                                  expected.count())),
          retry_after_for(priority)};
    }
  }
  return std::nullopt;
}

void AdmissionControl::left_queue(Priority priority) {
  waiting_[static_cast<int>(priority)].fetch_sub(1);
}

void AdmissionControl::record_finish(std::chrono::steady_clock::time_point when) {
  std::lock_guard lock(mutex_);
  if (last_finish_ != std::chrono::steady_clock::time_point{}) {
    const double gap = std::max(std::chrono::duration<double>(when - last_finish_).count(), 1e-4);
    // The mean gap over roughly the last 16 completions, and its inverse. (Averaging the
    // instantaneous rates 1/gap instead overestimates badly: sequences of one batch finish
    // together, and their near-zero gaps dominated the average, so deadlines that could not
    // be met were accepted and expired in the queue.)
    mean_gap_ = mean_gap_ == 0 ? gap : mean_gap_ + (gap - mean_gap_) / 16.0;
    rate_ = 1.0 / mean_gap_;
  }
  last_finish_ = std::max(last_finish_, when);
}

double AdmissionControl::completion_rate() const {
  std::lock_guard lock(mutex_);
  if (last_finish_ == std::chrono::steady_clock::time_point{}) return 0;
  // A long silence since the last completion means the rate is lower than the average says.
  const double idle =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - last_finish_).count();
  return idle > 0 && rate_ > 0 ? std::min(rate_, std::max(1.0 / idle, rate_ / 16.0)) : rate_;
}

std::chrono::duration<double> AdmissionControl::expected_wait(Priority priority) const {
  if (!saturated_.load()) return std::chrono::duration<double>(0);
  int ahead = 0;
  for (int p = 0; p <= static_cast<int>(priority); ++p)
    ahead += waiting_[p].load();
  const double rate = completion_rate();
  if (rate <= 0) return std::chrono::duration<double>(0);  // unknown yet: do not refuse on a guess
  return std::chrono::duration<double>((ahead + 1) / rate);
}

std::chrono::seconds AdmissionControl::retry_after_for(Priority priority) const {
  const double wait = expected_wait(priority).count();
  const double bounded = std::clamp(std::isfinite(wait) ? wait : 60.0, 1.0, 60.0);
  return std::chrono::seconds(static_cast<long>(std::ceil(bounded)));
}

}  // namespace supportd::sched
