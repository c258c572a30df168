// The birth-death chain of a load-dependent multi-server queue, in log space.
#include "plan/load_dependent.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace supportd::plan {

WaitDistribution load_dependent_wait(double arrival_rate, std::span<const double> busy_rates) {
  const std::size_t servers = busy_rates.size();
  // log of pi_n / pi_0 for n = 0 .. servers: the product of lambda / r(k) for k = 1 .. n.
  std::vector<double> log_weight(servers + 1, 0.0);
  for (std::size_t n = 1; n <= servers; ++n)
    log_weight[n] = log_weight[n - 1] + std::log(arrival_rate / busy_rates[n - 1]);
  // States beyond `servers` form a geometric tail with ratio lambda / r(c): their total weight
  // is pi_c / (1 - ratio). P(wait) = P(N >= c) (Poisson arrivals see time averages).
  const double ratio = arrival_rate / busy_rates.back();
  const double log_tail = log_weight[servers] - std::log1p(-ratio);
  const double top =
      std::max(*std::max_element(log_weight.begin(), log_weight.end() - 1), log_tail);
  double below = 0;  // sum over n < servers, scaled by exp(-top)
  for (std::size_t n = 0; n < servers; ++n)
    below += std::exp(log_weight[n] - top);
  const double tail = std::exp(log_tail - top);
  return {tail / (below + tail), busy_rates.back() - arrival_rate};
}

}  // namespace supportd::plan
