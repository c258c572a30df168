// The growth and per-class tables, as cells the text and HTML reports lay out.
#include <fmt/format.h>

#include "plan/plan_report.h"
#include "plan/units.h"

namespace supportd::plan {
namespace {

std::string factor_text(double factor) {
  return fmt::format("{:g}x", factor);
}

}  // namespace

Table growth_table(const CapacityPlan& plan) {
  const bool level = plan.inputs.targets.wait_s.has_value();
  const bool engines = plan.inputs.slots_per_engine > 0;
  Table t;
  t.header = {"load", "arrivals/s", "utilisation", "P(wait)", "mean wait", "wait p95", "wait p99"};
  if (level) t.header.push_back("within " + format_seconds(*plan.inputs.targets.wait_s));
  t.header.push_back("servers needed");
  if (engines) t.header.push_back("engines needed");
  for (const GrowthRow& row : plan.growth) {
    std::vector<std::string> cells{factor_text(row.factor), fmt::format("{:.4g}", row.arrival_rate),
                                   format_percent(row.utilization)};
    if (row.performance) {
      const Performance& p = *row.performance;
      cells.push_back(format_percent(p.p_wait()));
      cells.push_back(format_seconds(p.mean_wait_s()));
      cells.push_back(format_seconds(p.wait_quantile(0.95)));
      cells.push_back(format_seconds(p.wait_quantile(0.99)));
      if (level) cells.push_back(format_percent(*row.service_level));
    } else {
      cells.insert(cells.end(), {"overloaded", "", "", ""});
      if (level) cells.push_back("");
    }
    cells.push_back(std::to_string(row.servers_needed));
    if (engines) cells.push_back(std::to_string(row.engines_needed));
    t.rows.push_back(std::move(cells));
  }
  return t;
}

Table class_table(const CapacityPlan& plan) {
  Table t;
  if (!plan.classes) return t;
  t.header = {"load", "class", "arrivals/s", "P(wait)", "mean wait", "wait p95", "wait p99"};
  for (const GrowthRow& row : plan.growth) {
    for (const ClassWait& w : row.classes) {
      if (w.arrival_rate == 0) continue;
      std::vector<std::string> cells{factor_text(row.factor), w.name,
                                     fmt::format("{:.4g}", w.arrival_rate)};
      if (w.stable) {
        cells.push_back(format_percent(w.p_wait));
        cells.push_back(format_seconds(w.mean_wait_s));
        cells.push_back(format_seconds(w.wait_p95_s));
        cells.push_back(format_seconds(w.wait_p99_s));
      } else {
        cells.insert(cells.end(), {"overloaded", "", "", ""});
      }
      t.rows.push_back(std::move(cells));
    }
  }
  return t;
}

}  // namespace supportd::plan
