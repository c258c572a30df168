// A capacity plan written out: a text report for people (the default), JSON for scripts, and
// a self-contained HTML page (inline SVG charts of the wait against the load; no network).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "plan/capacity_plan.h"

namespace supportd::plan {

constexpr int kPlanJsonVersion = 1;

// The text report: the model and whether it is exact, the inputs and where they come from,
// today's queue, the servers needed, the growth table and the waits per class.
std::string plan_text(const CapacityPlan& plan);

// JSON: at the top level today's `utilization`, `p_wait`, `mean_wait_s`, `wait_p50_s`,
// `wait_p95_s`, `wait_p99_s`, `service_level` (null without a target wait), `servers`,
// `servers_needed`, `engines_needed` (null when not known); `model`, `approximation`;
// `inputs`, `targets`, `classes` and `growth` (one object per load factor, with the same
// fields; the waits null when that load overloads today's servers); `run_spread` (null unless
// asked: `seconds`, `repeats`, `samples`, and `mean_wait_s` and `wait_p95_s` as percentiles
// `p5`, `p50`, `p95` over simulated runs). Never NaN or infinity.
std::string plan_json(const CapacityPlan& plan);

// The HTML page: the text report, a chart of the mean and p95 wait against the arrival rate
// for today's servers and the servers needed at each growth step, the growth table.
std::string plan_html(const CapacityPlan& plan);

// A table of cells, shared by the text and HTML reports.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

// The growth steps: load, arrivals, and with the plan's servers the utilisation, P(wait), mean
// wait, p95, p99, service level; then the servers (and engines) needed.
Table growth_table(const CapacityPlan& plan);

// Waits per class (when classes are given): one row per class and load factor.
Table class_table(const CapacityPlan& plan);

}  // namespace supportd::plan
