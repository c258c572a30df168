// The tail probability of a signal's recent mean anomaly score against its longer history.
#include "obs/anomaly/anomaly_likelihood.h"

#include <algorithm>
#include <cmath>

namespace supportd::obs::anomaly {

double normal_tail(double z) {
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

AnomalyLikelihood::AnomalyLikelihood(const LikelihoodOptions& options) : options_(options) {
  options_.average = std::max<std::size_t>(options_.average, 1);
  options_.history = std::max<std::size_t>(options_.history, 2);
}

double AnomalyLikelihood::update(double raw) {
  recent_.push_back(raw);
  recent_sum_ += raw;
  if (recent_.size() > options_.average) {
    recent_sum_ -= recent_.front();
    recent_.pop_front();
  }
  const double mean_now = recent_sum_ / static_cast<double>(recent_.size());

  tail_ = 1;
  const auto count = static_cast<double>(means_.size());
  if (means_.size() >= options_.min_history) {
    const double mean = sum_ / count;
    const double variance = std::max(0.0, sum_squares_ / count - mean * mean);
    // A floor on the spread: a perfectly steady history must not make the smallest wobble
    // infinitely unlikely.
    const double spread = std::max(std::sqrt(variance), 1e-3);
    tail_ = normal_tail((mean_now - mean) / spread);
  }

  means_.push_back(mean_now);
  sum_ += mean_now;
  sum_squares_ += mean_now * mean_now;
  if (means_.size() > options_.history) {
    sum_ -= means_.front();
    sum_squares_ -= means_.front() * means_.front();
    means_.pop_front();
  }
  if (++since_recount_ >= options_.history) {
    since_recount_ = 0;
    sum_ = sum_squares_ = 0;
    for (double mean : means_) {
      sum_ += mean;
      sum_squares_ += mean * mean;
    }
  }
  const double score = -std::log10(std::max(tail_, 1e-300)) / options_.decades;
  return std::clamp(score, 0.0, 1.0);
}

}  // namespace supportd::obs::anomaly
