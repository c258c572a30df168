// The capacity plan as a text report.
#include <fmt/format.h>

#include <algorithm>

#include "plan/plan_report.h"
#include "plan/units.h"

namespace supportd::plan {
namespace {

std::string layout(const Table& t) {
  std::vector<std::size_t> width(t.header.size(), 0);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], cells[i].size());
  };
  measure(t.header);
  for (const auto& row : t.rows)
    measure(row);
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text = " ";
    for (std::size_t i = 0; i < cells.size() && i < width.size(); ++i)
      text += fmt::format(" {:>{}}", cells[i], width[i]);
    while (!text.empty() && text.back() == ' ')
      text.pop_back();
    out += text + "\n";
  };
  line(t.header);
  for (const auto& row : t.rows)
    line(row);
  return out;
}

std::string inputs_text(const CapacityPlan& plan) {
  const PlanInputs& in = plan.inputs;
  const Station& s = in.station;
  std::string out = fmt::format("inputs ({}):\n", in.source);
  out += fmt::format("  arrivals {:.4g}/s, service time {} ({:.4g}/s per server), {} servers{}\n",
                     s.arrival_rate, format_seconds(1 / s.service_rate), s.service_rate, s.servers,
                     plan.servers_chosen ? " (chosen: the servers needed)" : "");
  out += fmt::format("  arrival CV {:.3g}, service CV {:.3g}", s.arrival_cv, s.service_cv);
  if (in.slots_per_engine > 0) out += fmt::format(", {} slots per engine", in.slots_per_engine);
  out += "\n";
  for (const std::string& note : in.notes)
    out += "  - " + note + "\n";
  return out;
}

}  // namespace

std::string plan_text(const CapacityPlan& plan) {
  const Performance& p = plan.performance;
  const PlanInputs& in = plan.inputs;
  std::string out = fmt::format("supportd capacity: {}, {}\n", p.model,
                                p.approximation ? "an approximation" : "exact");
  out += inputs_text(plan);
  out += fmt::format("\ntoday ({} servers):\n", in.station.servers);
  out += fmt::format("  utilisation            {}\n", format_percent(p.utilization));
  out += fmt::format("  P(wait)                {}\n", format_percent(p.p_wait()));
  out += fmt::format("  mean wait              {}\n", format_seconds(p.mean_wait_s()));
  out +=
      fmt::format("  wait p50 / p95 / p99   {} / {} / {}\n", format_seconds(p.wait_quantile(0.5)),
                  format_seconds(p.wait_quantile(0.95)), format_seconds(p.wait_quantile(0.99)));
  if (p.ttft_mean_s) {
    out += fmt::format("  mean time to 1st token {} (simulated: arrival to the first token)\n",
                       format_seconds(*p.ttft_mean_s));
  }
  if (plan.service_level) {
    out += fmt::format("  service level          {} within {}\n",
                       format_percent(*plan.service_level), format_seconds(*in.targets.wait_s));
  }
  out += fmt::format("  servers needed         {} for {}\n", plan.servers_needed,
                     describe(in.targets));
  if (in.slots_per_engine > 0) {
    out += fmt::format("  engines needed         {} ({} slots each)\n", plan.engines_needed,
                       in.slots_per_engine);
  }
  if (const auto& spread = plan.run_spread) {
    out += fmt::format(
        "\none measurement of {} at this rate{} (5th / 50th / 95th percentile of {} simulated):\n"
        "  mean wait              {} / {} / {}\n"
        "  p95 wait               {} / {} / {}\n",
        format_seconds(spread->seconds),
        spread->repeats > 1 ? fmt::format(", averaged over {} runs", spread->repeats) : "",
        spread->samples, format_seconds(spread->mean_wait_s[0]),
        format_seconds(spread->mean_wait_s[1]), format_seconds(spread->mean_wait_s[2]),
        format_seconds(spread->wait_p95_s[0]), format_seconds(spread->wait_p95_s[1]),
        format_seconds(spread->wait_p95_s[2]));
  }
  out += fmt::format("\ngrowth, with {} servers (servers needed for {}):\n", in.station.servers,
                     describe(in.targets));
  out += layout(growth_table(plan));
  if (plan.classes) {
    out += fmt::format(
        "\nwaits per class, non-preemptive priority with {} servers (Cobham's formula for c "
        "servers: an approximation; means {}; percentiles assume an exponential wait):\n",
        in.station.servers, plan.classes->exact_means ? "exact for these inputs" : "approximate");
    out += layout(class_table(plan));
  }
  return out;
}

}  // namespace supportd::plan
