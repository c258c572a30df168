// Recent samples of one quantity, for percentiles over the last N seconds (/v1/stats).
// Bounded: at most `capacity` samples are kept (the oldest go first).
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

namespace supportd::obs {

struct Percentiles {
  std::size_t count = 0;
  double p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0, mean = 0;
};

// Percentiles of `values` (nearest-rank); sorts a copy.
Percentiles percentiles_of(std::vector<double> values);

class SlidingWindow {
 public:
  using Clock = std::chrono::steady_clock;
  explicit SlidingWindow(std::chrono::seconds span = std::chrono::seconds(60),
                         std::size_t capacity = 20000)
      : span_(span), capacity_(capacity) {}

  void add(double value, Clock::time_point now = Clock::now());
  Percentiles percentiles(Clock::time_point now = Clock::now()) const;

 private:
  const std::chrono::seconds span_;
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<std::pair<Clock::time_point, double>> samples_;  // guarded by mutex_
};

}  // namespace supportd::obs
