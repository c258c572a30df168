// The capacity plan as JSON: every number finite or null.
#include <boost/json.hpp>

#include <cmath>

#include "plan/plan_report.h"

namespace supportd::plan {
namespace json = boost::json;
namespace {

json::value number(double value) {
  if (!std::isfinite(value)) return nullptr;
  return value;
}

json::value optional_number(const std::optional<double>& value) {
  return value ? number(*value) : json::value(nullptr);
}

json::value count_or_null(int count) {
  return count > 0 ? json::value(count) : json::value(nullptr);
}

// The fields of one load on the plan's servers; waits null when overloaded.
void put_waits(json::object& o, double utilization, const std::optional<Performance>& p,
               const std::optional<double>& service_level) {
  o["utilization"] = number(utilization);
  o["p_wait"] = p ? number(p->p_wait()) : nullptr;
  o["mean_wait_s"] = p ? number(p->mean_wait_s()) : nullptr;
  o["wait_p50_s"] = p ? number(p->wait_quantile(0.5)) : nullptr;
  o["wait_p95_s"] = p ? number(p->wait_quantile(0.95)) : nullptr;
  o["wait_p99_s"] = p ? number(p->wait_quantile(0.99)) : nullptr;
  o["service_level"] = optional_number(service_level);
  o["ttft_mean_s"] = p ? optional_number(p->ttft_mean_s) : nullptr;  // simulated only
}

json::array classes_json(const std::vector<ClassWait>& classes) {
  json::array out;
  for (const ClassWait& w : classes) {
    out.push_back(json::object{{"name", w.name},
                               {"arrival_rate", number(w.arrival_rate)},
                               {"stable", w.stable},
                               {"p_wait", w.stable ? number(w.p_wait) : nullptr},
                               {"mean_wait_s", w.stable ? number(w.mean_wait_s) : nullptr},
                               {"wait_p95_s", w.stable ? number(w.wait_p95_s) : nullptr},
                               {"wait_p99_s", w.stable ? number(w.wait_p99_s) : nullptr}});
  }
  return out;
}

}  // namespace

std::string plan_json(const CapacityPlan& plan) {
  const PlanInputs& in = plan.inputs;
  const Station& s = in.station;
  const Targets& t = in.targets;
  json::object o{{"version", kPlanJsonVersion},
                 {"tool", "supportd capacity"},
                 {"model", plan.performance.model},
                 {"approximation", plan.performance.approximation}};
  json::array notes;
  for (const std::string& note : in.notes)
    notes.push_back(json::string(note));
  o["inputs"] = json::object{{"source", in.source},
                             {"arrival_rate", number(s.arrival_rate)},
                             {"service_rate", number(s.service_rate)},
                             {"service_time_s", number(1 / s.service_rate)},
                             {"servers", s.servers},
                             {"servers_chosen", plan.servers_chosen},
                             {"arrival_cv", number(s.arrival_cv)},
                             {"service_cv", number(s.service_cv)},
                             {"slots_per_engine", count_or_null(in.slots_per_engine)},
                             {"notes", std::move(notes)}};
  o["targets"] = json::object{{"mean_wait_s", optional_number(t.mean_wait_s)},
                              {"wait_s", optional_number(t.wait_s)},
                              {"service_level", optional_number(t.service_level)},
                              {"max_utilization", optional_number(t.max_utilization)}};
  o["servers"] = s.servers;
  put_waits(o, plan.performance.utilization, plan.performance, plan.service_level);
  o["servers_needed"] = plan.servers_needed;
  o["engines_needed"] = count_or_null(plan.engines_needed);
  if (plan.classes) {
    o["classes"] = json::object{{"model",
                                 "non-preemptive priority: Cobham's formula generalised to c "
                                 "servers; percentiles assume an exponential conditional wait"},
                                {"approximation", true},
                                {"exact_means", plan.classes->exact_means},
                                {"classes", classes_json(plan.classes->classes)}};
  } else {
    o["classes"] = nullptr;
  }
  json::array growth;
  for (const GrowthRow& row : plan.growth) {
    json::object g{{"factor", number(row.factor)}, {"arrival_rate", number(row.arrival_rate)}};
    put_waits(g, row.utilization, row.performance, row.service_level);
    g["overloaded"] = !row.performance.has_value();
    g["servers_needed"] = row.servers_needed;
    g["engines_needed"] = count_or_null(row.engines_needed);
    if (!row.classes.empty()) g["classes"] = classes_json(row.classes);
    growth.push_back(std::move(g));
  }
  o["growth"] = std::move(growth);
  if (const auto& spread = plan.run_spread) {
    const auto percentiles = [](const std::array<double, 3>& values) {
      return json::object{
          {"p5", number(values[0])}, {"p50", number(values[1])}, {"p95", number(values[2])}};
    };
    o["run_spread"] = json::object{{"seconds", number(spread->seconds)},
                                   {"repeats", spread->repeats},
                                   {"samples", spread->samples},
                                   {"mean_wait_s", percentiles(spread->mean_wait_s)},
                                   {"wait_p95_s", percentiles(spread->wait_p95_s)}};
  } else {
    o["run_spread"] = nullptr;
  }
  return json::serialize(o) + "\n";
}

}  // namespace supportd::plan
