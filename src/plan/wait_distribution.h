// The wait in queue (arrival to the start of service) of a multi-server FIFO queue whose wait,
// given that there is one, is exponential: P(W > t) = p_wait * exp(-drain_rate * t).
// That is exact for M/M/c (drain rate c mu - lambda) and for exponential service whose total
// rate depends on how many servers are busy (load_dependent.h); the approximations keep the
// shape and change the two numbers (Allen-Cunneen scales the drain rate).
// Thread-safety: plain data.
#pragma once

namespace supportd::plan {

struct WaitDistribution {
  double p_wait = 0;      // P(W > 0): the share of arrivals that wait at all
  double drain_rate = 1;  // per second (> 0): the rate of the conditional wait's exponential

  // E[W] = p_wait / drain_rate, seconds.
  double mean() const;
  // P(W > t) for t >= 0 seconds.
  double exceeds(double t) const;
  // P(W <= t): the service level for a target wait of t seconds.
  double within(double t) const;
  // The smallest t with P(W <= t) >= q (0 when at least q of arrivals do not wait).
  // REQUIRES: 0 <= q < 1.
  double quantile(double q) const;
};

}  // namespace supportd::plan
