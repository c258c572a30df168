// A discrete-event simulation of the queues src/plan models, to test its formulas against:
// c identical servers, renewal arrivals (gaps of a given mean and CV), classes drawn per
// arrival by share, non-preemptive priority between classes (FIFO within one), service times
// of a given mean and CV per class; or, for load-dependent service, the birth-death chain
// itself (exponential service whose total rate depends on how many are busy).
// Gaps and service times are gamma-distributed (CV 1: exponential; CV 0: constant). Seeded and
// bounded in count: the same inputs give the same numbers.
#pragma once

#include <cstdint>
#include <vector>

namespace supportd::plan::testing {

struct SimClass {
  double share = 1;  // of the arrivals
  double service_mean_s = 1;
  double service_cv = 1;
};

struct SimulationSetup {
  double arrival_rate = 1;
  double arrival_cv = 1;
  int servers = 1;
  std::vector<SimClass> classes{SimClass{}};  // highest priority first
  std::vector<double> busy_rates;  // not empty: load-dependent exponential service, one class
  std::int64_t arrivals = 200000;  // measured, after `warmup` more
  std::int64_t warmup = 20000;
  std::uint64_t seed = 1;
};

// An estimate with its standard error (from batch means over 20 batches in arrival order).
struct Estimate {
  double value = 0;
  double standard_error = 0;
};

struct ClassResult {
  Estimate mean_wait_s;
  Estimate p_wait;
  std::vector<double> waits;  // every measured wait of the class, seconds, in arrival order
};

struct SimulationResult {
  std::vector<ClassResult> classes;
  ClassResult all;
};

SimulationResult simulate(const SimulationSetup& setup);

// The share of `waits` (in arrival order) at most `t`, with its batch-means standard error.
Estimate share_within(const std::vector<double>& waits, double t);

}  // namespace supportd::plan::testing
