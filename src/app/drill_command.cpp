// `supportd drill latency-spike`: the latency-spike drill (src/drill/latency_spike.h) against a
// running server, with its report as text or JSON. Exit codes: 0 every step passed; 1 a step
// failed (the report says which) or the server could not be drilled; 2 bad flags or key file.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <string>

#include "app/commands.h"
#include "core/read_file.h"
#include "core/temp_file.h"
#include "drill/latency_spike.h"

namespace supportd::app {
namespace {

struct DrillFlags {
  drill::DrillOptions options;
  std::string admin_key_file, api_key_file, output;
  int learn_s = 300, settle_s = 60, baseline_s = 30, detect_s = 60, recover_s = 120, window_s = 10;
  bool json = false, quiet = false;
};

// The key in `file` (its first line, trimmed); the flag and file named on failure.
Result<std::string> key_from(const std::string& flag, const std::string& file) {
  auto text = read_text_file(file);
  if (!text) return Error::invalid(flag + ": " + text.error().message);
  std::string key = text->substr(0, text->find('\n'));
  while (!key.empty() && (key.back() == '\r' || key.back() == ' '))
    key.pop_back();
  if (key.empty()) return Error::invalid(flag + ": " + file + ": the file holds no key");
  return key;
}

int run(DrillFlags& flags) {
  auto admin = key_from("--admin-key-file", flags.admin_key_file);
  if (!admin) return report_failure(admin.error());
  flags.options.admin_key = *admin;
  if (!flags.api_key_file.empty()) {
    auto key = key_from("--api-key-file", flags.api_key_file);
    if (!key) return report_failure(key.error());
    flags.options.api_key = *key;
  }
  if (!flags.output.empty()) {
    if (Status ok = check_output_file("--output", flags.output); !ok)
      return report_failure(ok.error());
  }
  auto& o = flags.options;
  o.learn_timeout = std::chrono::seconds(flags.learn_s);
  o.settle = std::chrono::seconds(flags.settle_s);
  o.baseline = std::chrono::seconds(flags.baseline_s);
  o.detect_timeout = std::chrono::seconds(flags.detect_s);
  o.recover_timeout = std::chrono::seconds(flags.recover_s);
  o.window = std::chrono::seconds(flags.window_s);
  auto report = drill::run_latency_spike(o, [&flags](const std::string& line) {
    if (!flags.quiet) fmt::print(stderr, "{}\n", line);
  });
  if (!report) return report_failure(report.error());
  const std::string text = flags.json ? drill::report_json(*report) : drill::report_text(*report);
  if (flags.output.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else if (Status written = write_file_atomically(flags.output, text); !written) {
    return report_failure(written.error(), {});
  }
  return report->passed() ? 0 : 1;
}

}  // namespace

void add_drill_command(CLI::App& app, int& exit_code) {
  CLI::App* drill_app =
      app.add_subcommand("drill", "Rehearse the operations runbook against a running server");
  drill_app->require_subcommand(1);
  static DrillFlags flags;
  CLI::App* spike = drill_app->add_subcommand(
      "latency-spike",
      "Under a steady load of its own, inject a decode delay that about doubles p99 and check, "
      "with timestamps: the anomaly alert fires (GET /v1/alerts), with --prometheus the alert "
      "rule in deploy/prometheus fires too, the slow requests show the "
      "injected stage (GET /v1/traces), the mitigation is applied (the low class shed, POST "
      "/admin/shed) and p99 returns to its baseline. Prints the time to detect, mitigate and "
      "recover and a pass/fail per step; restores the server whatever happens. The server needs "
      "--admin-key-file and --faults (docs/operations.md, \"Drills\"). Exit codes: 0 passed, 1 a "
      "step failed or the server could not be drilled, 2 bad flags.");
  spike->add_option("--url", flags.options.url, "The server, http://host:port")->required();
  spike->add_option("--admin-key-file", flags.admin_key_file, "File holding the admin key")
      ->required();
  spike->add_option("--prometheus", flags.options.prometheus_url,
                    "A Prometheus scraping the server with deploy/prometheus's rules, "
                    "http://host:port: the drill also checks that SupportdLatencyAnomaly fires");
  spike->add_option("--api-key-file", flags.api_key_file,
                    "File holding an API key, when the server requires keys");
  spike
      ->add_option("--workers", flags.options.workers,
                   "Closed-loop load workers (half normal, half low)")
      ->check(CLI::Range(2, 256))
      ->capture_default_str();
  spike->add_option("--max-tokens", flags.options.max_tokens, "Tokens per load request")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  spike
      ->add_option("--delay-ms", flags.options.delay_ms,
                   "Decode delay per step on the low class (0: sized from the baseline p99 to "
                   "reach about --spike times it)")
      ->check(CLI::Range(0.0, 60000.0))
      ->capture_default_str();
  spike
      ->add_option("--spike", flags.options.spike,
                   "The multiple of the baseline p99 the sized delay aims at (a larger one stands "
                   "out of a noisier machine)")
      ->check(CLI::Range(1.5, 20.0))
      ->capture_default_str();
  spike->add_option("--learn-timeout", flags.learn_s, "Seconds the detectors may take to learn")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  spike
      ->add_option("--settle-seconds", flags.settle_s,
                   "Seconds the load runs before the baseline (the server's latency windows "
                   "then hold the steady load only)")
      ->check(CLI::Range(0, 3600))
      ->capture_default_str();
  spike
      ->add_option("--baseline-seconds", flags.baseline_s, "Seconds the baseline p99 is taken over")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  spike->add_option("--detect-timeout", flags.detect_s, "Seconds the alert may take")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  spike->add_option("--recover-timeout", flags.recover_s, "Seconds recovery may take")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  spike
      ->add_option("--window-seconds", flags.window_s,
                   "While recovering, p99 over the requests sent this recently")
      ->check(CLI::Range(1, 600))
      ->capture_default_str();
  spike
      ->add_option("--recovered-ratio", flags.options.recovered_ratio,
                   "Recovered when p99 is at most the baseline times this")
      ->check(CLI::Range(1.0, 10.0))
      ->capture_default_str();
  spike->add_flag("--json", flags.json, "The report as JSON");
  spike->add_option("--output", flags.output, "Write the report to this file (default: stdout)");
  spike->add_flag("--quiet", flags.quiet, "No progress lines on stderr");
  spike->callback([&exit_code] { exit_code = run(flags); });
}

}  // namespace supportd::app
