// Logistic regression (logistic.h): Newton's method on the ridge-penalized log-likelihood, each
// step solved by Gaussian elimination with partial pivoting.
#include "kb/train/logistic.h"

#include <cmath>
#include <utility>

namespace supportd::kb {

double logistic(const LogisticWeights& weights, std::span<const double> row) {
  double z = weights[0];
  for (std::size_t i = 0; i < row.size(); ++i)
    z += weights[i + 1] * row[i];
  return 1.0 / (1.0 + std::exp(-z));
}

std::optional<LogisticWeights> fit_logistic(std::span<const double> rows,
                                            const std::vector<bool>& outcomes, std::size_t features,
                                            double ridge) {
  const std::size_t n = features + 1;  // with the bias
  LogisticWeights w(n, 0.0);
  std::vector<double> x(n);
  for (int iteration = 0; iteration < 50; ++iteration) {
    std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0.0));  // [hessian | grad]
    for (std::size_t i = 0; i < n; ++i) {
      a[i][i] = ridge;
      a[i][n] = ridge * w[i];
    }
    for (std::size_t s = 0; s < outcomes.size(); ++s) {
      x[0] = 1;
      for (std::size_t f = 0; f < features; ++f)
        x[f + 1] = rows[s * features + f];
      const double p = logistic(w, std::span<const double>(x).subspan(1));
      const double residual = p - (outcomes[s] ? 1 : 0);
      for (std::size_t i = 0; i < n; ++i) {
        a[i][n] += residual * x[i];
        for (std::size_t j = 0; j < n; ++j)
          a[i][j] += p * (1 - p) * x[i] * x[j];
      }
    }
    for (std::size_t col = 0; col < n; ++col) {
      std::size_t pivot = col;
      for (std::size_t row = col + 1; row < n; ++row) {
        if (std::abs(a[row][col]) > std::abs(a[pivot][col])) pivot = row;
      }
      std::swap(a[col], a[pivot]);
      if (std::abs(a[col][col]) < 1e-12) return std::nullopt;
      for (std::size_t row = 0; row < n; ++row) {
        if (row == col) continue;
        const double factor = a[row][col] / a[col][col];
        for (std::size_t k = col; k <= n; ++k)
          a[row][k] -= factor * a[col][k];
      }
    }
    double change = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double step = a[i][n] / a[i][i];
      w[i] -= step;
      change += std::abs(step);
    }
    if (change < 1e-8) break;
  }
  return w;
}

}  // namespace supportd::kb
