// The capacity plan as one self-contained HTML page: the text report, a chart of the wait
// against the load, and the tables.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "bench/svg_chart.h"
#include "plan/plan_report.h"
#include "plan/units.h"

namespace supportd::plan {
namespace {

using bench::ChartSeries;
using bench::html_escape;

constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c",
                                   "#d62728", "#9467bd", "#8c564b"};
constexpr int kCurves = 6;                    // server counts charted at most
constexpr int kPoints = 160;                  // points per curve
constexpr int kSimulatedPoints = 24;          // with a simulated engine (each point a simulation)
constexpr double kHighestUtilization = 0.97;  // curves stop there (the wait goes to infinity)

// The plan's performance at arrival rates from 0 to `top` (or to kHighestUtilization of
// `servers`' capacity, whichever comes first), while it has a steady state. A simulated
// engine is evaluated at fewer rates (each is a simulation).
std::vector<std::pair<double, Performance>> evaluate_curve(const Station& base, int servers,
                                                           double top) {
  Station s = base;
  s.servers = servers;
  std::vector<std::pair<double, Performance>> points;
  const double end = std::min(top, kHighestUtilization * servers * s.service_rate);
  const int count = s.batching ? kSimulatedPoints : kPoints;
  for (int i = 1; i <= count; ++i) {
    s.arrival_rate = end * i / count;
    auto p = evaluate(s);
    if (!p) break;
    points.emplace_back(s.arrival_rate, std::move(*p));
  }
  return points;
}

// The wait (mean, or a quantile when q > 0), in milliseconds, along an evaluated curve.
std::vector<std::pair<double, double>> wait_series(
    const std::vector<std::pair<double, Performance>>& curve, double q) {
  std::vector<std::pair<double, double>> points;
  for (const auto& [rate, p] : curve)
    points.emplace_back(rate, 1e3 * (q > 0 ? p.wait_quantile(q) : p.mean_wait_s()));
  return points;
}

std::string html_table(const Table& t) {
  std::string out = "<table>\n<tr>";
  for (const std::string& h : t.header)
    out += "<th>" + html_escape(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const std::string& cell : row)
      out += "<td>" + html_escape(cell) + "</td>";
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

}  // namespace

std::string plan_html(const CapacityPlan& plan) {
  const Station& s = plan.inputs.station;
  double top = s.arrival_rate;
  std::set<int> counts{s.servers};
  for (const GrowthRow& row : plan.growth) {
    top = std::max(top, row.arrival_rate);
    if (static_cast<int>(counts.size()) < kCurves) counts.insert(row.servers_needed);
  }
  std::vector<ChartSeries> mean_series;
  int color = 0;
  const auto planned = evaluate_curve(s, s.servers, top);
  for (int servers : counts) {
    mean_series.push_back(
        {fmt::format("{} servers{}", servers, servers == s.servers ? " (plan)" : ""),
         kColors[color++ % kCurves],
         wait_series(servers == s.servers ? planned : evaluate_curve(s, servers, top), 0)});
  }
  std::vector<ChartSeries> plan_series{{"mean", kColors[0], wait_series(planned, 0)},
                                       {"p95", kColors[1], wait_series(planned, 0.95)},
                                       {"p99", kColors[3], wait_series(planned, 0.99)}};
  const std::string title = "supportd capacity: " + plan.performance.model;
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n"
      "<style>body{{font-family:sans-serif;margin:24px;color:#222}}pre{{background:#f6f6f6;"
      "padding:12px;overflow-x:auto}}svg{{display:block;margin:12px 0}}table{{border-collapse:"
      "collapse}}td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}</style>\n"
      "</head>\n<body>\n<h1>{}</h1>\n",
      html_escape(title), html_escape(title));
  html += "<h2>Wait against load</h2>\n";
  html += bench::line_chart({"Mean wait in queue against the arrival rate", "arrivals per second",
                             "mean wait, ms", false, s.arrival_rate, "today"},
                            mean_series);
  html += bench::line_chart({fmt::format("Wait with {} servers: mean and percentiles", s.servers),
                             "arrivals per second", "wait, ms", false, s.arrival_rate, "today"},
                            plan_series);
  html += "<p>Curves stop at " + format_percent(kHighestUtilization) +
          " utilisation: the wait grows without bound as the load reaches the capacity.</p>\n";
  html += "<h2>Growth</h2>\n" + html_table(growth_table(plan));
  if (plan.classes)
    html += "<h2>Waits per priority class (approximation)</h2>\n" + html_table(class_table(plan));
  html += "<h2>Report</h2>\n<pre>" + html_escape(plan_text(plan)) + "</pre>\n</body>\n</html>\n";
  return html;
}

}  // namespace supportd::plan
