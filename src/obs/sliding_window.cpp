// SlidingWindow: samples with their times in a bounded deque under a mutex; percentiles by
// nearest rank over those younger than the window.
#include "obs/sliding_window.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace supportd::obs {

Percentiles percentiles_of(std::vector<double> values) {
  Percentiles p;
  p.count = values.size();
  if (values.empty()) return p;
  std::sort(values.begin(), values.end());
  auto rank = [&](double q) {
    const std::size_t index =
        static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::min(values.size() - 1, index == 0 ? 0 : index - 1)];
  };
  p.p50 = rank(0.50);
  p.p90 = rank(0.90);
  p.p95 = rank(0.95);
  p.p99 = rank(0.99);
  p.max = values.back();
  p.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return p;
}

void SlidingWindow::add(double value, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  samples_.emplace_back(now, value);
  while (samples_.size() > capacity_ ||
         (!samples_.empty() && samples_.front().first < now - span_)) {
    samples_.pop_front();
  }
}

Percentiles SlidingWindow::percentiles(Clock::time_point now) const {
  std::vector<double> values;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [at, value] : samples_) {
      if (at >= now - span_) values.push_back(value);
    }
  }
  return percentiles_of(std::move(values));
}

}  // namespace supportd::obs
