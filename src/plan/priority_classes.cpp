// Cobham's non-preemptive priority formula, generalised to c servers.
#include "plan/priority_classes.h"

#include <cmath>

#include "plan/erlang.h"
#include "plan/queue_model.h"

namespace supportd::plan {

Result<PriorityWaits> priority_waits(const std::vector<ClassLoad>& classes, int servers,
                                     double arrival_cv) {
  if (servers < 1 || servers > kMaxServers)
    return Error::invalid("the number of servers must be at least 1", "servers");
  if (!std::isfinite(arrival_cv) || arrival_cv < 0)
    return Error::invalid("--arrival-cv must be a number, 0 or more", "arrival-cv");
  double lambda = 0, work = 0, second_moment = 0;  // sums of lambda, lambda E[S], lambda E[S^2]
  bool same_service = true;
  double first_service = -1;  // of the first class with arrivals
  for (const ClassLoad& k : classes) {
    if (!std::isfinite(k.arrival_rate) || k.arrival_rate < 0)
      return Error::invalid("class " + k.name + ": the arrival rate must be 0 or more", "classes");
    if (!std::isfinite(k.service_time_s) || !(k.service_time_s > 0))
      return Error::invalid("class " + k.name + ": the service time must be above 0", "classes");
    if (!std::isfinite(k.service_cv) || k.service_cv < 0)
      return Error::invalid("class " + k.name + ": the service CV must be 0 or more", "classes");
    if (k.arrival_rate == 0) continue;
    lambda += k.arrival_rate;
    work += k.arrival_rate * k.service_time_s;
    second_moment +=
        k.arrival_rate * k.service_time_s * k.service_time_s * (1 + k.service_cv * k.service_cv);
    if (first_service < 0) first_service = k.service_time_s;
    same_service = same_service && k.service_time_s == first_service && k.service_cv == 1;
  }
  if (!(lambda > 0)) return Error::invalid("no class has arrivals", "classes");
  const double mean_service = work / lambda;
  const double load = work;  // erlangs
  PriorityWaits result;
  result.utilization = load / servers;
  // E[S^2] / E[S]^2 of the mixture, and its Allen-Cunneen counterpart ca^2 + cs^2.
  const double service_cv2 = second_moment / lambda / (mean_service * mean_service) - 1;
  const double variability = (arrival_cv * arrival_cv + service_cv2) / 2;
  const double all_busy = result.utilization < 1 ? erlang_c(servers, load) : 1.0;
  // W0: the mean time until some server frees, counted over all arrivals.
  const double residual = all_busy * mean_service * variability / servers;
  result.exact_means = arrival_cv == 1 && result.utilization < 1 && (servers == 1 || same_service);
  double before = 0;  // utilisation of the classes above
  for (const ClassLoad& k : classes) {
    ClassWait w{k.name, k.arrival_rate};
    const double through = before + k.arrival_rate * k.service_time_s / servers;
    w.p_wait = all_busy;
    w.stable = through < 1;
    if (w.stable && residual > 0) {
      w.mean_wait_s = residual / ((1 - before) * (1 - through));
      const WaitDistribution tail{all_busy, all_busy / w.mean_wait_s};
      w.wait_p95_s = tail.quantile(0.95);
      w.wait_p99_s = tail.quantile(0.99);
    } else if (w.stable) {
      w.p_wait = 0;  // deterministic arrivals and service below capacity: nobody waits
    }
    before = through;
    result.classes.push_back(w);
  }
  return result;
}

}  // namespace supportd::plan
