// The confirmation's decision rule: a candidate against the defaults, beyond the noise
// (confirmation.h).
#include "tune/confirmation.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace supportd::tune {
namespace {

// C(2n, n), as a double (exact far past any number of rounds a tuner runs).
double central_binomial(int n) {
  double c = 1;
  for (int i = 1; i <= n; ++i)
    c = c * (n + i) / i;
  return c;
}

}  // namespace

int rounds_needed(const NoiseRule& rule) {
  int n = 2;
  // The relative slack keeps 1/20 <= 0.05 true in floating point.
  while (rule.compared > rule.false_alarm * central_binomial(n) * (1 + 1e-9))
    ++n;
  return n;
}

std::vector<double> measured(const Runs& runs) {
  std::vector<double> values;
  for (const std::optional<double>& run : runs)
    if (run) values.push_back(*run);
  return values;
}

double mean_of(const Runs& runs) {
  const std::vector<double> values = measured(runs);
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

Comparison compare(const Runs& defaults, const Runs& candidate, const NoiseRule& rule) {
  Comparison c;
  const std::vector<double> base = measured(defaults), tried = measured(candidate);
  if (!base.empty() && !tried.empty()) {
    const double base_mean = mean_of(defaults);
    if (base_mean > 0) c.gain = mean_of(candidate) / base_mean - 1;
    const double base_best = *std::max_element(base.begin(), base.end());
    if (base_best > 0) c.margin = *std::min_element(tried.begin(), tried.end()) / base_best - 1;
  }
  for (std::size_t r = 0; r < defaults.size() && r < candidate.size(); ++r) {
    if (!defaults[r] || !candidate[r] || !(*defaults[r] > 0)) continue;
    const double gain = *candidate[r] / *defaults[r] - 1;
    c.gain_low = std::min(c.gain_low.value_or(gain), gain);
    c.gain_high = std::max(c.gain_high.value_or(gain), gain);
  }

  const int rounds = static_cast<int>(defaults.size());
  const int needed = rounds_needed(rule);
  if (rounds < needed) {
    c.reason = fmt::format(
        "{} run{} each cannot tell a gain from the noise (at least {} with {} candidate{} "
        "confirmed)",
        rounds, rounds == 1 ? "" : "s", needed, rule.compared, rule.compared == 1 ? "" : "s");
  } else if (base.size() < defaults.size() || tried.size() < candidate.size()) {
    c.reason = fmt::format("{} of its runs and {} of the defaults' failed or were not run",
                           candidate.size() - tried.size(), defaults.size() - base.size());
  } else {
    const double worst = *std::min_element(tried.begin(), tried.end());
    const double base_best = *std::max_element(base.begin(), base.end());
    if (worst > base_best * (1 + rule.min_gain)) {
      c.beats = true;
    } else {
      c.reason = fmt::format(
          "its worst run ({:.3f} good/s) did not beat the defaults' best ({:.3f}) by {:g}%", worst,
          base_best, rule.min_gain * 100);
    }
  }
  return c;
}

}  // namespace supportd::tune
