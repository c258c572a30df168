// Logistic regression for the decisions fitted at import (the confidence calibration and the
// out-of-scope gate): a bias and one weight per feature, fitted by Newton's method with a small
// ridge. Thread-safe (pure functions).
#pragma once

#include <optional>
#include <span>
#include <vector>

namespace supportd::kb {

// The bias followed by one weight per feature.
using LogisticWeights = std::vector<double>;

// Fits P(outcome | features) = 1 / (1 + exp(-(bias + weights . features))). `rows` holds
// `outcomes.size()` rows of `features` values each. Nullopt when the system is singular (a
// feature that never varies with a ridge too small to hold it, which the ridge prevents in
// practice). REQUIRES: rows.size() == outcomes.size() * features, features >= 1.
std::optional<LogisticWeights> fit_logistic(std::span<const double> rows,
                                            const std::vector<bool>& outcomes, std::size_t features,
                                            double ridge = 1e-3);

// The fitted probability for one row. REQUIRES: row.size() + 1 == weights.size().
double logistic(const LogisticWeights& weights, std::span<const double> row);

}  // namespace supportd::kb
