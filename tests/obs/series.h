// Synthetic series for the detector's tests: a daily-like wave with seeded noise, so a test
// knows where the anomaly it injects is and nothing else stands out.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "obs/anomaly/isolation_tree.h"

namespace supportd::obs::testing {

// A standard normal value from `random` (Box-Muller).
inline double normal(anomaly::Random& random) {
  const double u = 1.0 - random.uniform(), v = random.uniform();
  return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
}

// `count` values: 10 + 3 sin(2 pi t / period) + noise of standard deviation `noise`.
inline std::vector<double> wave(std::size_t count, std::uint64_t seed, double noise = 0.3,
                                double period = 100) {
  anomaly::Random random(seed);
  std::vector<double> values;
  for (std::size_t t = 0; t < count; ++t)
    values.push_back(10 + 3 * std::sin(6.283185307179586 * static_cast<double>(t) / period) +
                     noise * normal(random));
  return values;
}

}  // namespace supportd::obs::testing
