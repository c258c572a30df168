// Feature vectors from a stream of values: the value, its shingle and short-window shapes.
#include "obs/anomaly/feature_shaper.h"

#include <algorithm>
#include <cmath>

namespace supportd::obs::anomaly {

FeatureShaper::FeatureShaper(const FeatureOptions& options) : options_(options) {
  options_.shingle = std::max<std::size_t>(options_.shingle, 1);
  dimensions_ = options_.shingle + (options_.step ? 1 : 0) + (options_.mean_window > 1 ? 1 : 0) +
                (options_.spread_window > 1 ? 1 : 0);
  history_ = std::max({options_.shingle, options_.step ? std::size_t{2} : std::size_t{1},
                       options_.mean_window, options_.spread_window + 1});
  features_.resize(dimensions_);
}

std::span<const double> FeatureShaper::push(double value) {
  values_.push_back(value);
  if (values_.size() > history_) values_.pop_front();
  if (values_.size() < history_) return {};

  const std::size_t n = values_.size();
  std::size_t at = 0;
  for (std::size_t i = 0; i < options_.shingle; ++i)
    features_[at++] = values_[n - 1 - i];
  if (options_.step) features_[at++] = values_[n - 1] - values_[n - 2];
  if (options_.mean_window > 1) {
    double sum = 0;
    for (std::size_t i = n - options_.mean_window; i < n; ++i)
      sum += values_[i];
    features_[at++] = sum / static_cast<double>(options_.mean_window);
  }
  if (options_.spread_window > 1) {
    double sum = 0;
    for (std::size_t i = n - options_.spread_window; i < n; ++i)
      sum += std::abs(values_[i] - values_[i - 1]);
    features_[at++] = sum / static_cast<double>(options_.spread_window);
  }
  return features_;
}

}  // namespace supportd::obs::anomaly
