// A multi-server queue whose service rate depends on the load: with k requests in service the
// servers together complete requests at rate busy_rates[k-1] (exponential), and with all c busy
// at busy_rates[c-1] however long the queue. Continuous batching is such a server: one engine
// step serves every running sequence, so a sequence runs slower when more run beside it, and
// the engine's total rate grows less than linearly with the batch. Plain M/M/c is the special
// case busy_rates[k-1] = k mu. The number in the system is a birth-death chain; its stationary
// distribution is computed in log space (stable for thousands of servers), and the wait of a
// FIFO arrival that finds all c busy is a sum of exponentials at rate busy_rates[c-1] whose
// count is geometric: exponential again, P(W > t) = P(wait) exp(-(busy_rates[c-1] - lambda) t).
// Thread-safety: pure functions.
#pragma once

#include <span>

#include "plan/wait_distribution.h"

namespace supportd::plan {

// The FIFO wait for Poisson arrivals at `arrival_rate` per second.
// REQUIRES: busy_rates not empty, every rate > 0 and finite, arrival_rate > 0 and
// arrival_rate < busy_rates.back() (a steady state exists).
WaitDistribution load_dependent_wait(double arrival_rate, std::span<const double> busy_rates);

}  // namespace supportd::plan
