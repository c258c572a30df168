// The drill's report (latency_spike.h): a table of steps with their times and the three
// figures a drill is run for, as text, and the same as JSON.
#include <fmt/format.h>
#include <boost/json.hpp>

#include "drill/latency_spike.h"

namespace supportd::drill {
namespace {

namespace json = boost::json;

std::string seconds_text(const std::optional<double>& seconds) {
  return seconds ? fmt::format("{:.1f} s", *seconds) : "-";
}

json::value seconds_json(const std::optional<double>& seconds) {
  return seconds ? json::value(*seconds) : json::value(nullptr);
}

}  // namespace

std::string report_text(const DrillReport& report) {
  std::string text = "latency-spike drill\n\n  step        result  at (from injection)  detail\n";
  for (const auto& step : report.steps) {
    text += fmt::format("  {:<10}  {:<6}  {:>19}  {}\n", step.name, step.passed ? "pass" : "FAIL",
                        seconds_text(step.at_s), step.detail);
  }
  text += fmt::format(
      "\n  time to detect    {}{}\n  Prometheus rule   {}{}\n  time to mitigate  {}  ({})\n"
      "  time to recover   {}\n\n"
      "  p99 of class normal: baseline {:.0f} ms, under the fault {:.0f} ms, recovered {:.0f} ms\n"
      "  decode delay injected: {:.0f} ms per step on class low\n"
      "  load: {} requests, {} failed (not counting the shed class's refusals)\n\n"
      "drill {}\n",
      seconds_text(report.detect_s), report.alert.empty() ? "" : "  (alert " + report.alert + ")",
      seconds_text(report.rule_s),
      report.rule.empty() ? "  (not checked: no --prometheus)" : "  (" + report.rule + ")",
      seconds_text(report.mitigate_s), report.mitigation.empty() ? "none" : report.mitigation,
      seconds_text(report.recover_s), report.baseline_p99_ms, report.spike_p99_ms,
      report.recovered_p99_ms, report.delay_ms, report.requests, report.failed_requests,
      report.passed() ? "PASSED" : "FAILED");
  return text;
}

std::string report_json(const DrillReport& report) {
  json::array steps;
  for (const auto& step : report.steps) {
    steps.push_back(json::object{{"step", step.name},
                                 {"passed", step.passed},
                                 {"at_s", seconds_json(step.at_s)},
                                 {"detail", step.detail}});
  }
  json::object document{{"drill", "latency-spike"},
                        {"passed", report.passed()},
                        {"time_to_detect_s", seconds_json(report.detect_s)},
                        {"time_to_rule_s", seconds_json(report.rule_s)},
                        {"rule", report.rule},
                        {"time_to_mitigate_s", seconds_json(report.mitigate_s)},
                        {"time_to_recover_s", seconds_json(report.recover_s)},
                        {"alert", report.alert},
                        {"mitigation", report.mitigation},
                        {"baseline_p99_ms", report.baseline_p99_ms},
                        {"spike_p99_ms", report.spike_p99_ms},
                        {"recovered_p99_ms", report.recovered_p99_ms},
                        {"delay_ms", report.delay_ms},
                        {"alerts_while_steady", report.alerts_while_steady},
                        {"steady_alerts", json::value_from(report.steady_alerts)},
                        {"requests", report.requests},
                        {"failed_requests", report.failed_requests},
                        {"steps", std::move(steps)}};
  return json::serialize(document) + "\n";
}

}  // namespace supportd::drill
