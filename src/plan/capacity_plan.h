// A capacity plan: the queue as it is (or as the targets want it), the servers and engines
// needed, waits per priority class, and the same at growing load (1x to 5x: the reference's
// surge). What `supportd capacity` prints, as data; plan_report.h writes it out.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "plan/priority_classes.h"
#include "plan/queue_model.h"
#include "plan/staffing.h"

namespace supportd::plan {

struct PlanInputs {
  Station station;  // servers 0: plan with the servers the targets need
  Targets targets;  // empty: utilisation <= kDefaultMaxUtilization (30% headroom)
  // Priority classes at today's load, highest first (empty: one FIFO class). Their arrival
  // rates are scaled with the station's at each growth step.
  std::vector<ClassLoad> classes;
  std::vector<double> growth{1, 1.2, 1.5, 2, 3, 4, 5};  // load factors, each > 0
  int slots_per_engine = 0;  // servers one engine holds (0: not known, no engine counts)
  // Above 0 (with a simulated engine): how much a run of this many seconds at today's load
  // varies by chance, averaged over run_repeats runs (batching_model.h, simulate_run_spread).
  double run_seconds = 0;
  int run_repeats = 1;
  std::string source;              // where the numbers come from, for the reader
  std::vector<std::string> notes;  // how each measured number was obtained or assumed
};

struct GrowthRow {
  double factor = 1;
  double arrival_rate = 0;
  double utilization = 0;                  // with the plan's servers (1 or more: overloaded)
  std::optional<Performance> performance;  // with the plan's servers; none when overloaded
  std::optional<double> service_level;     // when a target wait is set and not overloaded
  int servers_needed = 0;                  // for the targets at this load
  int engines_needed = 0;                  // 0 when slots_per_engine is not known
  std::vector<ClassWait> classes;          // with the plan's servers (when classes are given)
};

struct CapacityPlan {
  PlanInputs inputs;            // station.servers and targets resolved
  bool servers_chosen = false;  // servers were not given: the plan uses servers_needed
  Performance performance;      // today's load on the plan's servers
  std::optional<double> service_level;
  int servers_needed = 0;
  int engines_needed = 0;
  std::optional<PriorityWaits> classes;
  std::vector<GrowthRow> growth;
  std::optional<RunSpread> run_spread;  // when inputs.run_seconds > 0
};

// The plan. kInvalidArgument (from the checks of queue_model.h, staffing.h and
// priority_classes.h, or a growth factor not above 0) naming the input; when the given
// servers cannot keep up with today's load, the message says how many are needed.
Result<CapacityPlan> make_plan(PlanInputs inputs);

// Engines holding `servers` servers, `slots_per_engine` each (0 when that is not known).
int engines_for(int servers, int slots_per_engine);

}  // namespace supportd::plan
