// The step-time model's running least-squares fit and step mean (see step_time.h).
#include "engine/step_time.h"

#include <algorithm>

namespace supportd::engine {

StepTimeModel::StepTimeModel(double memory) : forget_(1.0 - 1.0 / std::max(memory, 1.0)) {}

void StepTimeModel::record(int tokens, double milliseconds) {
  // Exponentially weighted means and (co)variances, updated in one pass (West's algorithm).
  const double x = tokens;
  weight_ = weight_ * forget_ + 1;
  const double share = 1 / weight_;
  const double dx = x - mean_tokens_;
  const double dy = milliseconds - mean_ms_;
  mean_tokens_ += share * dx;
  mean_ms_ += share * dy;
  tokens_variance_ = (1 - share) * (tokens_variance_ + share * dx * dx);
  covariance_ = (1 - share) * (covariance_ + share * dx * dy);
}

void StepTimeModel::record_step(double milliseconds) {
  step_weight_ = step_weight_ * forget_ + 1;
  step_mean_ms_ += (milliseconds - step_mean_ms_) / step_weight_;
}

double StepTimeModel::predict(int tokens) const {
  if (weight_ == 0) return 0;
  // With calls of one size only, the slope is unknown: their mean is the best guess.
  const double slope = tokens_variance_ > 1e-9 ? std::max(covariance_ / tokens_variance_, 0.0) : 0;
  return std::max(mean_ms_ + slope * (tokens - mean_tokens_), 0.0);
}

}  // namespace supportd::engine
