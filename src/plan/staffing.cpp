// Servers needed for targets, by an upward scan of Erlang B's recurrence.
#include "plan/staffing.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <vector>

#include "plan/erlang.h"
#include "plan/units.h"

namespace supportd::plan {

Status check_targets(const Targets& t) {
  if (t.mean_wait_s && !(std::isfinite(*t.mean_wait_s) && *t.mean_wait_s > 0))
    return Error::invalid("--target-mean-wait must be a number of seconds above 0",
                          "target-mean-wait");
  if (t.wait_s && !(std::isfinite(*t.wait_s) && *t.wait_s >= 0))
    return Error::invalid("--target-wait must be a number of seconds, 0 or more", "target-wait");
  if (t.service_level) {
    if (!(*t.service_level > 0 && *t.service_level < 1)) {
      return Error::invalid("--service-level must be a share above 0 and below 1 (e.g. 0.8)",
                            "service-level");
    }
    if (!t.wait_s) {
      return Error::invalid(
          "--service-level needs --target-wait: the share answered within which wait",
          "service-level");
    }
  }
  if (t.max_utilization && !(*t.max_utilization > 0 && *t.max_utilization < 1)) {
    return Error::invalid("--max-utilization must be above 0 and below 1 (0.7: 30% headroom)",
                          "max-utilization");
  }
  return {};
}

bool meets(const Performance& p, const Targets& t) {
  if (t.max_utilization && p.utilization > *t.max_utilization) return false;
  if (t.mean_wait_s && p.mean_wait_s() > *t.mean_wait_s) return false;
  if (t.service_level && p.wait_within(*t.wait_s) < *t.service_level) return false;
  return true;
}

std::string describe(const Targets& t) {
  std::vector<std::string> parts;
  if (t.service_level)
    parts.push_back(format_percent(*t.service_level) + " within " + format_seconds(*t.wait_s));
  if (t.mean_wait_s) parts.push_back("mean wait <= " + format_seconds(*t.mean_wait_s));
  if (t.max_utilization) parts.push_back("utilisation <= " + format_percent(*t.max_utilization));
  if (parts.empty()) return "a steady state";
  return fmt::format("{}", fmt::join(parts, ", "));
}

Result<int> servers_needed(const Station& station, const Targets& targets) {
  if (!station.busy_rates.empty() || station.batching) {
    return Error::make(ErrorCode::kUnsupported,
                       "servers needed: a load-dependent service curve or a simulated engine "
                       "belongs to one engine; count engines instead");
  }
  Station s = station;
  s.servers = 1;
  if (auto status = check_station(s); !status) return status.error();
  if (auto status = check_targets(targets); !status) return status.error();
  const double load = s.offered_load();
  // The fewest servers with a steady state: more than the offered load.
  const double stable = std::floor(load) + 1;
  if (stable > kMaxServers) {
    return Error::invalid(fmt::format("more than {} servers would be needed (offered load {:.4g} "
                                      "erlangs): check the rates and their units",
                                      kMaxServers, load),
                          "arrival-rate");
  }
  s.servers = static_cast<int>(stable);
  double b = erlang_b(s.servers, load);
  const double variability = variability_factor(s);
  Performance p;
  for (;;) {
    p.utilization = s.utilization();
    p.wait = multi_server_wait(s, erlang_c_from_b(s.servers, load, b), variability);
    if (meets(p, targets)) return s.servers;
    if (s.servers == kMaxServers) {
      return Error::invalid(
          fmt::format("the targets ({}) need more than {} servers", describe(targets), kMaxServers),
          "servers");
    }
    b = erlang_b_next(s.servers, load, b);
    ++s.servers;
  }
}

}  // namespace supportd::plan
