// The exponential-tail wait: mean, tail, service level and quantiles in closed form.
#include "plan/wait_distribution.h"

#include <cmath>

namespace supportd::plan {

double WaitDistribution::mean() const {
  return p_wait / drain_rate;
}

double WaitDistribution::exceeds(double t) const {
  return p_wait * std::exp(-drain_rate * t);
}

double WaitDistribution::within(double t) const {
  return 1 - exceeds(t);
}

double WaitDistribution::quantile(double q) const {
  const double beyond = 1 - q;  // P(W > t) = beyond at the quantile
  if (p_wait <= beyond) return 0;
  return std::log(p_wait / beyond) / drain_rate;
}

}  // namespace supportd::plan
