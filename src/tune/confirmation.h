// The tuner's decision rule: does a candidate beat the defaults beyond the noise? The defaults
// and the candidates confirmed run in rounds, interleaved (defaults, A, B, defaults, A, B, ...),
// so that a drift of the machine hits every one of them alike; each round holds one run of each.
//
// A candidate beats the defaults when every run of both was measured, there were enough rounds,
// and its worst run beats the defaults' best run by the minimum gain (3% by default):
// min(candidate) > max(defaults) x (1 + min_gain). Were the candidate no better (its runs and the
// defaults' drawn from one distribution), the chance that all n of its runs land above all n of
// the defaults' is 1 / C(2n, n), before the margin: 1/20 for n = 3, 1/70 for n = 4. With k
// candidates confirmed the chance that any one of them does is at most k / C(2n, n); the rounds
// needed are the fewest that keep it at or below 5% (3 for one candidate, 4 for two or three).
// Fewer rounds cannot tell a gain from the noise: no recommendation.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace supportd::tune {

// One goodput per round, in order; none: that run failed (or was not run for the budget).
using Runs = std::vector<std::optional<double>>;

struct NoiseRule {
  double min_gain = 0.03;     // the worst run must beat the defaults' best by this share
  double false_alarm = 0.05;  // the most chance that noise alone passes (see rounds_needed)
  int compared = 1;           // candidates confirmed against the same defaults
};

// The fewest rounds n with rule.compared / C(2n, n) <= rule.false_alarm (at least 2).
// REQUIRES: rule.compared >= 1, 0 < rule.false_alarm < 1.
int rounds_needed(const NoiseRule& rule);

struct Comparison {
  bool beats = false;  // a gain beyond the noise, by the rule above
  // mean(candidate) / mean(defaults) - 1 over the measured runs; none without a run of each or
  // when the defaults' mean is 0.
  std::optional<double> gain;
  // The spread over the rounds: the least and the greatest of candidate[r] / defaults[r] - 1
  // over the rounds where both were measured and the defaults' run is above 0.
  std::optional<double> gain_low, gain_high;
  // min(candidate) / max(defaults) - 1: the gain the noise cannot explain (none as for gain).
  std::optional<double> margin;
  std::string reason;  // why it does not beat the defaults, for the report; empty when it does
};

// The verdict on one candidate. REQUIRES: candidate.size() == defaults.size() (the same rounds).
Comparison compare(const Runs& defaults, const Runs& candidate, const NoiseRule& rule);

// The measured values of `runs`, in order.
std::vector<double> measured(const Runs& runs);
// The mean of the measured values of `runs`; 0 when none was measured.
double mean_of(const Runs& runs);

}  // namespace supportd::tune
