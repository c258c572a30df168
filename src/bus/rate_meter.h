// What an engine node measures of itself for the cluster's admission: requests completed per
// second of busy time (time with at least one request held: an idle engine completes nothing,
// and its idle time says nothing of its rate) over the last completions, and the mean time a
// request takes from start to end.
// Thread-safety: not thread-safe; the worker guards it.
#pragma once

#include <chrono>
#include <deque>

namespace supportd::bus {

class RateMeter {
 public:
  using Clock = std::chrono::steady_clock;

  // The number of requests held changed to `held` at `now`.
  void set_held(int held, Clock::time_point now);
  // A request that started at `started` ended at `now`.
  void record_finish(Clock::time_point started, Clock::time_point now);

  // Completions per busy second over the last kWindow completions; 0 until two are seen.
  double completion_rate(Clock::time_point now) const;
  // Exponentially averaged start-to-end seconds; 0 until one is seen.
  double service_seconds() const { return service_seconds_; }

  static constexpr std::size_t kWindow = 32;

 private:
  double busy_seconds(Clock::time_point now) const;  // total busy time until `now`

  int held_ = 0;
  Clock::time_point since_;      // when held_ last changed
  double busy_total_ = 0;        // busy seconds until since_
  std::deque<double> finishes_;  // busy_seconds() at each of the last completions
  double service_seconds_ = 0;
};

}  // namespace supportd::bus
