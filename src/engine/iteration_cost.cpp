// The iteration cost's running least-squares fit under non-negative coefficients (see
// iteration_cost.h).
#include "engine/iteration_cost.h"

#include <algorithm>
#include <array>

namespace supportd::engine {
namespace {

constexpr double kNoVariance = 1e-9;  // a regressor whose weighted variance is below: constant
// A regressor whose variance the others explain all but this share of is in lockstep with them
// (|correlation| above about 0.9995 for two).
constexpr double kOwnVariance = 1e-3;

using Vector = IterationCostModel::Vector;
using Matrix = IterationCostModel::Matrix;
using Indices = std::array<int, IterationCostModel::kRegressors>;
// The regressors' places in the fit's vectors.
enum { kDecode, kPrompt, kSplit, kPairs };

// Pairs of decode tokens in one step: the convex term's regressor.
std::int64_t decode_pairs(std::int64_t decode_tokens) {
  return decode_tokens * (decode_tokens - 1) / 2;
}

// Least squares on `used` of the regressors, from their (co)variances: false when one of them
// does not vary or is in lockstep with the others. Symmetric elimination without pivoting:
// each pivot over its diagonal is the share of that regressor's variance the earlier ones do
// not explain.
bool solve(const Matrix& covariance, const Vector& with_ms, const Indices& used, int count,
           Vector& slopes) {
  Matrix a{};
  Vector b{};
  for (int i = 0; i < count; ++i) {
    for (int j = 0; j < count; ++j)
      a[i][j] = covariance[used[i]][used[j]];
    b[i] = with_ms[used[i]];
  }
  for (int k = 0; k < count; ++k) {
    const double diagonal = covariance[used[k]][used[k]];
    if (!(diagonal > kNoVariance) || !(a[k][k] > kOwnVariance * diagonal)) return false;
    for (int i = k + 1; i < count; ++i) {
      const double factor = a[i][k] / a[k][k];
      for (int j = k; j < count; ++j)
        a[i][j] -= factor * a[k][j];
      b[i] -= factor * b[k];
    }
  }
  Vector solution{};
  for (int i = count - 1; i >= 0; --i) {
    double sum = b[i];
    for (int j = i + 1; j < count; ++j)
      sum -= a[i][j] * solution[j];
    solution[i] = sum / a[i][i];
  }
  slopes = {};
  for (int i = 0; i < count; ++i)
    slopes[used[i]] = solution[i];
  return true;
}

// Non-negative least squares over `n` regressors, exactly: the fit of every subset whose
// unconstrained solution has no negative slope, and of those the one that explains the most.
Vector non_negative_fit(const Matrix& covariance, const Vector& with_ms, int n) {
  Vector best{};
  double best_explained = 0;
  for (int subset = 1; subset < (1 << n); ++subset) {
    Indices used{};
    int count = 0;
    for (int i = 0; i < n; ++i)
      if (subset & (1 << i)) used[count++] = i;
    Vector slopes{};
    if (!solve(covariance, with_ms, used, count, slopes)) continue;
    if (std::any_of(slopes.begin(), slopes.end(), [](double s) { return s < 0; })) continue;
    // The variance a fit explains: slopes . (covariances with milliseconds).
    double explained = 0;
    for (int i = 0; i < n; ++i)
      explained += slopes[i] * with_ms[i];
    if (explained > best_explained) {
      best_explained = explained;
      best = slopes;
    }
  }
  return best;
}

}  // namespace

IterationCostModel::IterationCostModel(int step_tokens, int split_tokens, double memory)
    : forget_(1.0 - 1.0 / std::max(memory, 1.0)),
      step_tokens_(step_tokens),
      split_tokens_(split_tokens) {
  kept_.reserve(kRecentKept);
}

void IterationCostModel::record_iteration(int decode_tokens, int prompt_tokens, bool split,
                                          double milliseconds) {
  // Exponentially weighted means and (co)variances, updated in one pass (West's algorithm).
  ++iterations_;
  const std::int64_t pairs = decode_pairs(decode_tokens);
  totals_.milliseconds += milliseconds;
  totals_.decode_tokens += decode_tokens;
  totals_.prompt_tokens += prompt_tokens;
  totals_.splits += split ? 1 : 0;
  totals_.decode_pairs += pairs;
  const IterationCost::Iteration kept{static_cast<float>(decode_tokens),
                                      static_cast<float>(prompt_tokens),
                                      static_cast<float>(milliseconds), split};
  if (kept_.size() < kRecentKept) {
    kept_.push_back(kept);
  } else {
    kept_[static_cast<std::size_t>((iterations_ - 1) % kRecentKept)] = kept;
  }
  if (iterations_ % kRecentEvery == 0)
    recent_ = std::make_shared<const std::vector<IterationCost::Iteration>>(kept_);
  weight_ = weight_ * forget_ + 1;
  const double share = 1 / weight_;
  Vector x{};
  x[kDecode] = decode_tokens;
  x[kPrompt] = prompt_tokens;
  x[kSplit] = split ? 1.0 : 0.0;
  x[kPairs] = static_cast<double>(pairs);
  Vector deviation{};
  for (int i = 0; i < kRegressors; ++i) {
    deviation[i] = x[i] - mean_[i];
    mean_[i] += share * deviation[i];
  }
  const double y = milliseconds - mean_ms_;
  mean_ms_ += share * y;
  const double keep = 1 - share;
  for (int i = 0; i < kRegressors; ++i) {
    for (int j = 0; j < kRegressors; ++j)
      covariance_[i][j] = keep * (covariance_[i][j] + share * deviation[i] * deviation[j]);
    with_ms_[i] = keep * (with_ms_[i] + share * deviation[i] * y);
  }
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
  cost.split_tokens = split_tokens_;
  cost.totals = totals_;
  cost.recent = recent_;
  fit(cost);
  return cost;
}

void IterationCostModel::fit(IterationCost& cost) const {
  if (iterations_ == 0) return;

  const auto& c = covariance_;
  // Decode and prompt tokens apart when both vary and not in lockstep (the two alone solve);
  // else one regressor, all tokens, whose slope both kinds get.
  Vector unused{};
  const bool apart = solve(c, with_ms_, {kDecode, kPrompt}, 2, unused);
  Vector slopes{};
  if (apart) {
    slopes = non_negative_fit(c, with_ms_, kRegressors);
  } else {
    // Three regressors, each a sum of the originals: all tokens, split, pairs. Their
    // (co)variances are those of the sums: rows x covariance x rows transposed.
    constexpr std::array<Vector, 3> rows = {{{1, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
    Matrix cov{};
    Vector with{};
    for (int i = 0; i < 3; ++i) {
      for (int a = 0; a < kRegressors; ++a) {
        with[i] += rows[i][a] * with_ms_[a];
        for (int j = 0; j < 3; ++j)
          for (int b = 0; b < kRegressors; ++b)
            cov[i][j] += rows[i][a] * c[a][b] * rows[j][b];
      }
    }
    const Vector merged = non_negative_fit(cov, with, 3);
    slopes[kDecode] = slopes[kPrompt] = merged[0];
    slopes[kSplit] = merged[1];
    slopes[kPairs] = merged[2];
  }
  cost.per_decode_token_ms = slopes[kDecode];
  cost.per_prompt_token_ms = slopes[kPrompt];
  cost.per_split_ms = slopes[kSplit];
  cost.per_decode_pair_ms = slopes[kPairs];
  double fixed = mean_ms_;
  for (int i = 0; i < kRegressors; ++i)
    fixed -= slopes[i] * mean_[i];
  cost.fixed_ms = std::max(fixed, 0.0);
}

double IterationCost::predict(double decode_tokens, double prompt_tokens, bool split) const {
  return fixed_ms + per_decode_token_ms * decode_tokens + per_prompt_token_ms * prompt_tokens +
         (split ? per_split_ms : 0.0) +
         per_decode_pair_ms * decode_tokens * (decode_tokens - 1) / 2;
}

IterationCost::Excess IterationCost::excess() const {
  Excess summary;
  if (!recent) return summary;
  std::vector<double> excess;
  excess.reserve(recent->size());
  for (const Iteration& i : *recent)
    excess.push_back(i.milliseconds - predict(i.decode_tokens, i.prompt_tokens, i.split));
  std::sort(excess.begin(), excess.end());
  const std::size_t n = excess.size();
  const std::size_t tail = std::min<std::size_t>(kExcessTail, n);
  const std::size_t body = n - tail;
  const std::size_t bins = std::min<std::size_t>(kExcessBins, body);
  const auto add = [&](std::size_t from, std::size_t to) {
    double sum = 0;
    for (std::size_t j = from; j < to; ++j)
      sum += excess[j];
    summary.milliseconds.push_back(sum / static_cast<double>(to - from));
    summary.shares.push_back(static_cast<double>(to - from) / static_cast<double>(n));
  };
  for (std::size_t i = 0; i < bins; ++i)
    add(i * body / bins, (i + 1) * body / bins);
  for (std::size_t j = body; j < n; ++j)
    add(j, j + 1);
  // Means of equal values may differ in their last bit: ascending, exactly.
  std::vector<double>& values = summary.milliseconds;
  for (std::size_t i = 1; i < values.size(); ++i)
    values[i] = std::max(values[i], values[i - 1]);
  return summary;
}

}  // namespace supportd::engine
