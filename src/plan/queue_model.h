// One queue in front of c servers, as the capacity planner sees it, and its steady-state
// performance: utilisation, probability of waiting, mean wait and percentiles of the wait.
// The model follows the inputs: Poisson arrivals and exponential service (both coefficients of
// variation 1) give exact M/M/c (Erlang C); other variability gives Allen-Cunneen's G/G/c
// approximation (the M/M/c wait scaled by (ca^2 + cs^2) / 2); a load-dependent service curve
// gives the birth-death model of load_dependent.h (scaled the same way when the CVs are not 1);
// an engine's measured iteration costs give the continuous-batching simulation of
// batching_model.h (Poisson arrivals; its waits are the simulated ones, not a closed form).
// Thread-safety: pure functions.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "plan/batching_model.h"
#include "plan/wait_distribution.h"

namespace supportd::plan {

struct Station {
  double arrival_rate = 0;  // lambda: requests per second
  double service_rate = 0;  // mu: requests per second one server completes (1 / service time)
  int servers = 0;          // c
  double arrival_cv = 1;    // standard deviation / mean of the gaps between arrivals (1: Poisson)
  double service_cv = 1;    // standard deviation / mean of the service time (1: exponential)
  // Load-dependent service: busy_rates[k-1] = the servers' total completion rate with k busy,
  // k = 1 .. servers. Empty: k x service_rate (plain M/M/c).
  std::vector<double> busy_rates;
  // Continuous batching, simulated (servers == batching->slots); set with_batching() to fill
  // batching_capacity.
  std::optional<BatchingModel> batching;
  double batching_capacity = 0;  // batching_capacity(*batching): completions/s, every slot busy

  double offered_load() const { return arrival_rate / service_rate; }  // erlangs
  // The most the servers complete per second with all of them busy.
  double capacity() const;
  double utilization() const { return arrival_rate / capacity(); }
  bool markovian() const { return arrival_cv == 1 && service_cv == 1; }
};

// The most servers a plan considers (a guard against rates off by orders of magnitude).
constexpr int kMaxServers = 10'000'000;

// `station` simulating `model`: servers its slots, the service rate a slot's share of a full
// engine's rate. kInvalidArgument from check_batching.
Result<Station> with_batching(Station station, const BatchingModel& model);

struct Performance {
  double utilization = 0;
  WaitDistribution wait;       // simulated: the exponential tail with the sample's P(wait) and mean
  std::string model;           // e.g. "M/M/c (Erlang C)"
  bool approximation = false;  // true unless the model is exact for these inputs
  // Simulated: every measured wait, sorted (the quantiles and service level read it; the mean
  // is `wait`'s, fitted to it), and the mean time from arrival to the first token.
  std::shared_ptr<const std::vector<double>> sampled_waits;
  std::optional<double> ttft_mean_s;

  double p_wait() const { return wait.p_wait; }
  double mean_wait_s() const;
  // The smallest t with P(W <= t) >= q. REQUIRES: 0 <= q < 1.
  double wait_quantile(double q) const;
  // P(W <= t): the service level for a target wait of t seconds.
  double wait_within(double t) const;
};

// kInvalidArgument naming the input when a rate is not a finite number above 0, a CV is
// negative or not finite, servers is outside 1 .. kMaxServers, or busy_rates is neither empty
// nor one positive finite rate per server, or a batching model's checks fail or its slots are
// not the servers.
Status check_station(const Station& station);

// The steady state. kInvalidArgument from check_station, or when the utilisation is 1 or more
// (no steady state: the queue grows without bound), saying so with the numbers.
Result<Performance> evaluate(const Station& station);

// Allen-Cunneen's factor (ca^2 + cs^2) / 2: 1 for M/M/c.
double variability_factor(const Station& station);

// `wait` with Allen-Cunneen's `variability` applied: the conditional wait's mean is multiplied
// by it (P(wait) kept); 0 (deterministic arrivals and service below capacity): nobody waits.
WaitDistribution scale_wait(WaitDistribution wait, double variability);

// The wait of an M/M/c queue with Erlang C = `erlang_c`, scaled by `variability`.
// REQUIRES: arrival_rate < servers x service_rate.
WaitDistribution multi_server_wait(const Station& station, double erlang_c, double variability);

}  // namespace supportd::plan
