// The latency-spike drill (`supportd drill latency-spike`): against a running server, under a
// steady load it generates itself, it rehearses the runbook end to end and times it:
//   preflight  the server is ready, the admin key is right, faults and alerts are on
//   learn      the anomaly detectors have learnt the steady load (GET /v1/alerts), it has
//              run `settle` seconds, and the latency alerts its start raised have cleared
//              (waited for within `learn_timeout`; then named, and the drill goes on)
//   baseline   p99 of the protected class ("normal") over a window
//   inject     a decode delay on the "low" class (POST /admin/faults) sized to about `spike`
//              times p99 (1.5 x (spike - 1) x baseline p99 / max_tokens per step, unless
//              delay_ms is given)
//   detect     a latency alert is raised (GET /v1/alerts): the time to detect
//   rule       (with a Prometheus scraping the server) deploy/prometheus's SupportdLatencyAnomaly
//              is pending or firing for a newly raised alert (GET /api/v1/alerts there)
//   spike      p99 under the fault is at least 1.3 times the baseline (the drill did bite)
//   trace      a kept slow request shows the injected stage (GET /v1/traces: "fault decode")
//   mitigate   the runbook's relief, shedding the low class (POST /admin/shed): time to mitigate
//   recover    p99 of the protected class back within `recovered_ratio` of the baseline: the
//              time to recover
// and always, whatever failed, it restores the server (the fault removed, the class served
// again) and stops its load. Times are from the injection.
// Thread-safety: run_latency_spike runs on the caller's thread (its load on threads of its own).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

namespace supportd::drill {

struct DrillOptions {
  std::string url;             // the server, http://host:port
  std::string admin_key;       // for /admin/faults and /admin/shed
  std::string api_key;         // for the load and the reads, when the server requires keys
  std::string prometheus_url;  // a Prometheus scraping the server with deploy/prometheus's
                               // rules; empty: the rule step is left out
  int workers = 4;             // the load's closed-loop workers (half "normal", half "low")
  int max_tokens = 16;         // per request of the load
  std::chrono::seconds learn_timeout{300};  // for the detectors to learn the steady load
  // The load runs at least this long before the baseline, so that the server's latency
  // windows (60 s) hold the steady load only and what its start raised is not counted false.
  std::chrono::seconds settle{60};
  std::chrono::seconds baseline{30};  // the baseline window
  double delay_ms = 0;                // the decode delay per step; 0: sized from the baseline
  double spike = 2;                   // the sized delay aims at about this multiple of p99
  std::chrono::seconds detect_timeout{60};
  std::chrono::seconds recover_timeout{120};
  std::chrono::seconds window{10};  // p99 while recovering: over requests sent this recently
  double recovered_ratio = 1.25;    // recovered: p99 <= baseline * this
  std::chrono::milliseconds poll{500};
  std::chrono::milliseconds request_timeout{60000};
};

struct DrillStep {
  std::string name;
  bool passed = false;
  std::optional<double> at_s;  // seconds from the injection (negative: before it)
  std::string detail;
};

struct DrillReport {
  std::vector<DrillStep> steps;
  std::string mitigation;  // what was applied, in words and as the call
  std::string alert;       // the alert that detected the spike
  std::string rule;        // the Prometheus alert that followed it, "name{alert=...} state"
  double baseline_p99_ms = 0;
  double spike_p99_ms = 0;
  double recovered_p99_ms = 0;
  double delay_ms = 0;
  std::optional<double> detect_s, rule_s, mitigate_s, recover_s;
  std::size_t alerts_while_steady = 0;     // latency alerts raised in the baseline window (false)
  std::vector<std::string> steady_alerts;  // those alerts, as "signal@since"
  std::int64_t requests = 0;
  std::int64_t failed_requests = 0;  // no answer, or 5xx other than the shed class's 503
  bool passed() const;
};

// Runs the drill; `progress` gets one line at each step and every few seconds while waiting.
// Errors (kInvalidArgument: a bad URL; kUnavailable / kUnauthenticated: the preflight) mean
// nothing was injected; once it has begun, failures are failed steps in the report, except
// kCorrupt: an answer (the server's or Prometheus's) of a shape the drill does not read, after
// the server has been restored as for a failed step.
Result<DrillReport> run_latency_spike(const DrillOptions& options,
                                      const std::function<void(const std::string&)>& progress);

// The report as text (a table of steps and the three times) and as JSON.
std::string report_text(const DrillReport& report);
std::string report_json(const DrillReport& report);

}  // namespace supportd::drill
