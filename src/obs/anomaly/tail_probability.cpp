#include "obs/anomaly/tail_probability.h"

#include <algorithm>
#include <cmath>

namespace supportd::obs::anomaly {

TailProbability::TailProbability(const TailOptions& options) : options_(options) {}

double TailProbability::update(double raw) {
  tail_ = 1;
  if (history_.size() >= options_.min_history) {
    if (!fitted_ || since_fit_ >= options_.refit_every) refit();
    ++since_fit_;
    if (raw <= threshold_) {
      // In the body: the empirical share at or above it.
      const auto above = static_cast<double>(sorted_.end() -
                                             std::lower_bound(sorted_.begin(), sorted_.end(), raw));
      tail_ = std::max(above, 1.0) / static_cast<double>(sorted_.size());
    } else {
      tail_ = options_.tail_share * std::exp(-(raw - threshold_) / mean_excess_);
    }
  }
  history_.push_back(raw);
  if (history_.size() > options_.history) history_.pop_front();
  const double score = -std::log10(std::max(tail_, 1e-300)) / options_.decades;
  return std::clamp(score, 0.0, 1.0);
}

void TailProbability::refit() {
  sorted_.assign(history_.begin(), history_.end());
  std::sort(sorted_.begin(), sorted_.end());
  const auto n = sorted_.size();
  const auto tail_count = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::floor(options_.tail_share * static_cast<double>(n))));
  threshold_ = sorted_[n - tail_count - 1 < n ? n - tail_count - 1 : 0];
  double excess = 0;
  for (std::size_t i = n - tail_count; i < n; ++i)
    excess += sorted_[i] - threshold_;
  // A floor: a history of identical scores must not make the smallest rise infinitely rare.
  mean_excess_ = std::max(excess / static_cast<double>(tail_count), 1e-3);
  fitted_ = true;
  since_fit_ = 0;
}

}  // namespace supportd::obs::anomaly
