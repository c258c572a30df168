// The iteration cost's running two-regressor least-squares fit (see iteration_cost.h).
#include "engine/iteration_cost.h"

#include <algorithm>

namespace supportd::engine {
namespace {

constexpr double kNoVariance = 1e-9;  // a regressor whose weighted variance is below: constant

}  // namespace

IterationCostModel::IterationCostModel(int step_tokens, double memory)
    : forget_(1.0 - 1.0 / std::max(memory, 1.0)), step_tokens_(step_tokens) {}

void IterationCostModel::record_iteration(int decode_tokens, int prompt_tokens,
                                          double milliseconds) {
  // Exponentially weighted means and (co)variances, updated in one pass (West's algorithm).
  ++iterations_;
  weight_ = weight_ * forget_ + 1;
  const double share = 1 / weight_;
  const double d = decode_tokens - mean_decode_;
  const double p = prompt_tokens - mean_prompt_;
  const double y = milliseconds - mean_ms_;
  mean_decode_ += share * d;
  mean_prompt_ += share * p;
  mean_ms_ += share * y;
  const double keep = 1 - share;
  dd_ = keep * (dd_ + share * d * d);
  pp_ = keep * (pp_ + share * p * p);
  dp_ = keep * (dp_ + share * d * p);
  dy_ = keep * (dy_ + share * d * y);
  py_ = keep * (py_ + share * p * y);
}

void IterationCostModel::record_request(int prompt_tokens, int output_tokens) {
  ++requests_;
  request_weight_ = request_weight_ * forget_ + 1;
  mean_request_prompt_ += (prompt_tokens - mean_request_prompt_) / request_weight_;
  mean_request_output_ += (output_tokens - mean_request_output_) / request_weight_;
}

IterationCost IterationCostModel::snapshot() const {
  IterationCost cost;
  cost.iterations = iterations_;
  cost.requests = requests_;
  cost.prompt_tokens = mean_request_prompt_;
  cost.output_tokens = mean_request_output_;
  cost.step_tokens = step_tokens_;
  if (iterations_ == 0) return cost;

  double decode = 0, prompt = 0;
  const double determinant = dd_ * pp_ - dp_ * dp_;
  // Both regressors vary, and not in lockstep (|correlation| below about 0.9995).
  const bool apart = dd_ > kNoVariance && pp_ > kNoVariance && determinant > 1e-3 * dd_ * pp_;
  if (apart) {
    decode = (dy_ * pp_ - py_ * dp_) / determinant;
    prompt = (py_ * dd_ - dy_ * dp_) / determinant;
  }
  if (apart && decode < 0) {
    decode = 0;
    prompt = std::max(py_ / pp_, 0.0);
  } else if (apart && prompt < 0) {
    prompt = 0;
    decode = std::max(dy_ / dd_, 0.0);
  } else if (!apart) {
    // One slope for all tokens: the only one the data can tell.
    const double total = dd_ + 2 * dp_ + pp_;
    const double slope = total > kNoVariance ? std::max((dy_ + py_) / total, 0.0) : 0.0;
    decode = slope;
    prompt = slope;
  }
  cost.per_decode_token_ms = decode;
  cost.per_prompt_token_ms = prompt;
  cost.fixed_ms = std::max(mean_ms_ - decode * mean_decode_ - prompt * mean_prompt_, 0.0);
  return cost;
}

}  // namespace supportd::engine
