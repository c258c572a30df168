// Waits per class under non-preemptive priority on c servers: a free server takes the oldest
// request of the highest class waiting, and never interrupts one it has started.
// Cobham's formula, W_k = W0 / ((1 - s_{k-1}) (1 - s_k)), with s_k the utilisation of classes
// 1..k, generalised to c servers with W0 = C(c, a) E[S^2] / (2 c E[S]) and Allen-Cunneen's
// arrival variability (E[S^2] / E[S]^2 = 1 + cs^2 becomes ca^2 + cs^2). The means are exact
// for M/G/1 (c = 1, Poisson) and for M/M/c when every class has the same service time; an
// approximation otherwise. Percentiles per class take the conditional wait as exponential with
// the class's mean: always an approximation. With one class the result is the FIFO queue's
// (queue_model.h); the overall work is conserved (sum of rho_k W_k = rho W_FIFO).
// Above full utilisation the servers never idle (C = 1): the classes whose cumulative
// utilisation stays below 1 still have a finite wait, the others none (`stable` false).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace supportd::plan {

struct ClassLoad {
  std::string name;
  double arrival_rate = 0;    // per second (0: the class is absent)
  double service_time_s = 0;  // mean, > 0
  double service_cv = 1;
};

struct ClassWait {
  std::string name;
  double arrival_rate = 0;
  bool stable = true;  // false: this class's queue grows without bound; waits below are 0
  double p_wait = 0;   // P(W > 0), the same for every class (all servers busy)
  double mean_wait_s = 0;
  double wait_p95_s = 0;  // approximation
  double wait_p99_s = 0;  // approximation
};

struct PriorityWaits {
  std::vector<ClassWait> classes;  // in priority order, highest first
  bool exact_means = false;        // see above; percentiles are always approximations
  double utilization = 0;          // all classes together
};

// `classes` in priority order, highest first, on `servers` servers with arrival variability
// `arrival_cv`. kInvalidArgument when no class has arrivals, a rate is negative or not
// finite, a service time or CV is out of range, or servers < 1.
Result<PriorityWaits> priority_waits(const std::vector<ClassLoad>& classes, int servers,
                                     double arrival_cv);

}  // namespace supportd::plan
