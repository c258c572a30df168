// Steady-state performance of one multi-server queue: Erlang C, Allen-Cunneen, or the
// load-dependent birth-death chain, chosen by the inputs.
#include "plan/queue_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "plan/erlang.h"
#include "plan/load_dependent.h"

namespace supportd::plan {
namespace {

bool positive(double value) {
  return std::isfinite(value) && value > 0;
}

}  // namespace

double Station::capacity() const {
  if (batching) return batching_capacity;
  return busy_rates.empty() ? servers * service_rate : busy_rates.back();
}

Result<Station> with_batching(Station station, const BatchingModel& model) {
  if (auto status = check_batching(model); !status) return status.error();
  station.batching = model;
  station.batching_capacity = batching_capacity(model);
  station.servers = model.slots;
  station.service_rate = station.batching_capacity / model.slots;
  station.busy_rates.clear();
  return station;
}

double Performance::mean_wait_s() const {
  return wait.mean();  // simulated: fitted to the sample's mean (evaluate)
}

double Performance::wait_quantile(double q) const {
  if (!sampled_waits || sampled_waits->empty()) return wait.quantile(q);
  return nearest_rank(*sampled_waits, q);
}

double Performance::wait_within(double t) const {
  if (!sampled_waits || sampled_waits->empty()) return wait.within(t);
  const auto within = std::upper_bound(sampled_waits->begin(), sampled_waits->end(), t);
  return static_cast<double>(within - sampled_waits->begin()) /
         static_cast<double>(sampled_waits->size());
}

Status check_station(const Station& s) {
  if (!positive(s.arrival_rate))
    return Error::invalid("the arrival rate must be a number above 0 per second", "arrival-rate");
  if (!positive(s.service_rate))
    return Error::invalid("the service rate must be a number above 0 per second", "service-rate");
  if (s.servers < 1 || s.servers > kMaxServers) {
    return Error::invalid(
        fmt::format("the number of servers must be between 1 and {}", kMaxServers), "servers");
  }
  for (const auto& [name, cv] :
       {std::pair{"arrival-cv", s.arrival_cv}, {"service-cv", s.service_cv}}) {
    if (!std::isfinite(cv) || cv < 0)
      return Error::invalid(fmt::format("--{} must be a number, 0 or more", name), name);
  }
  if (s.batching) {
    if (auto status = check_batching(*s.batching); !status) return status;
    if (s.batching->slots != s.servers) {
      return Error::invalid(
          fmt::format("the simulated engine has {} slots but the plan {} servers: they must "
                      "agree (an engine's iteration costs are for its own slots)",
                      s.batching->slots, s.servers),
          "servers");
    }
    if (!s.busy_rates.empty())
      return Error::invalid("a service curve and a simulated engine exclude each other",
                            "busy-rates");
  }
  if (!s.busy_rates.empty()) {
    if (s.busy_rates.size() != static_cast<std::size_t>(s.servers))
      return Error::invalid("the service curve needs one rate per server", "busy-rates");
    for (double rate : s.busy_rates)
      if (!positive(rate))
        return Error::invalid("every rate of the service curve must be above 0", "busy-rates");
  }
  return {};
}

double variability_factor(const Station& s) {
  return (s.arrival_cv * s.arrival_cv + s.service_cv * s.service_cv) / 2;
}

WaitDistribution scale_wait(WaitDistribution wait, double variability) {
  if (variability == 0) return {0, wait.drain_rate};
  return {wait.p_wait, wait.drain_rate / variability};
}

WaitDistribution multi_server_wait(const Station& s, double erlang_c, double variability) {
  return scale_wait({erlang_c, s.servers * s.service_rate - s.arrival_rate}, variability);
}

Result<Performance> evaluate(const Station& s) {
  if (auto status = check_station(s); !status) return status.error();
  Performance p;
  p.utilization = s.utilization();
  if (!(p.utilization < 1)) {
    return Error::invalid(
        fmt::format("utilisation {:.3f} is 1 or more (arrivals {:.4g}/s, the {} servers complete "
                    "at most {:.4g}/s): there is no steady state, the queue grows without bound",
                    p.utilization, s.arrival_rate, s.servers, s.capacity()),
        "utilization");
  }
  if (s.batching) {
    // Poisson arrivals into the simulated engine: the CVs are the simulation's own.
    auto simulated = simulate_batching(*s.batching, s.arrival_rate);
    if (!simulated) return simulated.error();
    p.sampled_waits = std::make_shared<const std::vector<double>>(std::move(simulated->waits));
    p.wait = simulated->mean_wait_s > 0
                 ? WaitDistribution{simulated->p_wait, simulated->p_wait / simulated->mean_wait_s}
                 : WaitDistribution{0, 1};
    p.ttft_mean_s = simulated->ttft_mean_s;
    p.model = fmt::format(
        "continuous batching, simulated ({} requests, Poisson arrivals, measured iteration "
        "costs)",
        simulated->requests);
    p.approximation = true;
    return p;
  }
  const double variability = variability_factor(s);
  if (!s.busy_rates.empty()) {
    p.wait = scale_wait(load_dependent_wait(s.arrival_rate, s.busy_rates), variability);
    p.model = s.markovian() ? "load-dependent M/M/c (birth-death chain)"
                            : "load-dependent G/G/c (birth-death chain, Allen-Cunneen scaling)";
    p.approximation = !s.markovian();
    return p;
  }
  p.wait = multi_server_wait(s, erlang_c(s.servers, s.offered_load()), variability);
  p.model = s.markovian() ? "M/M/c (Erlang C)" : "G/G/c (Allen-Cunneen)";
  p.approximation = !s.markovian();
  return p;
}

}  // namespace supportd::plan
