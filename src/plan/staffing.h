// How many servers a queue needs to meet its targets: a mean wait, a service level (a share of
// arrivals answered within a wait, the call centre's "80% within 20 s"), a utilisation ceiling
// (headroom: at most 70% busy keeps 30% for surges), or all of them at once.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "core/status.h"
#include "plan/queue_model.h"

namespace supportd::plan {

struct Targets {
  std::optional<double> mean_wait_s;      // E[W] at most this
  std::optional<double> wait_s;           // with service_level: P(W <= wait_s) at least ...
  std::optional<double> service_level;    // ... this share, in (0, 1)
  std::optional<double> max_utilization;  // in (0, 1): utilisation at most this

  bool empty() const { return !mean_wait_s && !service_level && !max_utilization; }
};

// The reference's headroom: plan for at most 70% utilisation.
constexpr double kDefaultMaxUtilization = 0.7;

// kInvalidArgument naming the flag when a target is out of range or not a number, or a
// service level is given without the wait it counts against.
Status check_targets(const Targets& targets);

// True when `performance` meets every target in `targets`.
bool meets(const Performance& performance, const Targets& targets);

// One line saying what `targets` ask, e.g. "80% within 20 ms, utilisation <= 70%".
std::string describe(const Targets& targets);

// The fewest servers (the station's own count ignored) for which `station` has a steady state
// and meets every target; with no target, the fewest with a steady state. Scans upward with
// Erlang B's recurrence, O(1) per step. kInvalidArgument from check_station / check_targets
// or when more than kMaxServers would be needed; kUnsupported for load-dependent and
// simulated stations (their curve or engine is one engine's: count engines instead).
Result<int> servers_needed(const Station& station, const Targets& targets);

}  // namespace supportd::plan
