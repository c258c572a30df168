// The latency-spike drill's steps (see latency_spike.h), in order, each timed from the
// injection; the report's text and JSON are in drill_report.cpp.
#include "drill/latency_spike.h"

#include <algorithm>
#include <set>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "drill/http_call.h"
#include "drill/steady_load.h"

namespace supportd::drill {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;

constexpr const char* kProtected = "normal";  // the class whose latency the drill watches
constexpr const char* kTargeted = "low";      // the class the fault hits and the relief sheds
constexpr std::size_t kMinSamples = 10;       // requests a p99 is taken over, at least
constexpr double kSpikeRatio = 1.3;           // p99 under the fault / baseline: the drill bit

// The server and how to call it.
class Server {
 public:
  Server(HttpUrl url, const DrillOptions& options) : url_(std::move(url)), options_(options) {}

  Result<HttpReply> call(std::string_view method, std::string_view path, bool admin,
                         std::string_view body = {}) const {
    HeaderList headers;
    const std::string& key = admin ? options_.admin_key : options_.api_key;
    if (!key.empty()) headers.emplace_back("Authorization", "Bearer " + key);
    return http_call(url_, method, path, body, headers, milliseconds(10000));
  }
  // The JSON object of a 200 answer; an error naming the call otherwise.
  Result<json::object> json_of(std::string_view method, std::string_view path, bool admin,
                               std::string_view body = {}) const {
    auto reply = call(method, path, admin, body);
    if (!reply) return reply.error();
    if (reply->status == 401)
      return Error::make(ErrorCode::kUnauthenticated,
                         fmt::format("{} {}: 401 (wrong key?): {}", method, path, reply->body));
    if (reply->status / 100 != 2) {
      return Error::make(ErrorCode::kUnavailable,
                         fmt::format("{} {}: HTTP {}: {}", method, path, reply->status,
                                     reply->body.substr(0, 300)));
    }
    boost::system::error_code error;
    json::value value = json::parse(reply->body, error);
    if (error || !value.is_object())
      return Error::make(ErrorCode::kCorrupt,
                         fmt::format("{} {}: not a JSON object", method, path));
    return std::move(value.as_object());
  }
  const HttpUrl& url() const { return url_; }

 private:
  HttpUrl url_;
  const DrillOptions& options_;
};

bool is_latency_alert(std::string_view name) {
  return name.starts_with("e2e_") || name.starts_with("ttft_") || name.starts_with("itl_");
}

// Every latency alert in a GET /v1/alerts document, active or ended, as "name@since".
std::set<std::string> latency_alerts(const json::object& alerts) {
  std::set<std::string> seen;
  for (const char* list : {"active", "recent"}) {
    const json::value* entries = alerts.if_contains(list);
    if (entries == nullptr || !entries->is_array()) continue;
    for (const auto& entry : entries->as_array()) {
      const std::string name(entry.at("alert").as_string());
      if (is_latency_alert(name))
        seen.insert(name + "@" + std::string(entry.at("since").as_string()));
    }
  }
  return seen;
}

// The latency signal scored highest in a GET /v1/alerts document, as "signal scored S (raises
// at R) at V s"; kept across polls until `best_score` is beaten. For a detection that did not
// come, this says how near the detectors got (an alert also needs the value 20% above the
// signal's recent median).
void note_highest_score(const json::object& alerts, double& best_score, std::string& best) {
  const json::value* raise = nullptr;
  if (const json::value* thresholds = alerts.if_contains("thresholds"))
    raise = thresholds->as_object().if_contains("raise");
  for (const auto& entry : alerts.at("signals").as_array()) {
    const json::object& signal = entry.as_object();
    const std::string name(signal.at("signal").as_string());
    if (!is_latency_alert(name) || signal.at("learning").as_bool()) continue;
    const double score = signal.at("score").to_number<double>();
    if (score <= best_score) continue;
    best_score = score;
    best = fmt::format("{} scored {:.2f} (raises at {:.2f}) at {:.3f} s", name, score,
                       raise != nullptr ? raise->to_number<double>() : 0.0,
                       signal.at("value").to_number<double>());
  }
}

// The latency alerts active in a GET /v1/alerts document, by name.
std::set<std::string> active_latency_alerts(const json::object& alerts) {
  std::set<std::string> active;
  for (const auto& entry : alerts.at("active").as_array()) {
    const std::string name(entry.at("alert").as_string());
    if (is_latency_alert(name)) active.insert(name);
  }
  return active;
}

// Whether the detector of the protected class's e2e p99 has learnt (and is fed).
bool learnt(const json::object& alerts) {
  const std::string wanted = std::string("e2e_p99.") + kProtected;
  for (const auto& signal : alerts.at("signals").as_array()) {
    if (signal.at("signal").as_string() == wanted) return !signal.at("learning").as_bool();
  }
  return false;
}

constexpr const char* kRule = "SupportdLatencyAnomaly";  // deploy/prometheus/alerts.yml

// The `alert` labels of kRule's alerts, pending or firing, in a Prometheus's GET /api/v1/alerts
// document, as "label state".
Result<std::set<std::string>> rule_alerts(const HttpUrl& prometheus) {
  auto reply = http_call(prometheus, "GET", "/api/v1/alerts", {}, {}, milliseconds(10000));
  if (!reply) return reply.error();
  boost::system::error_code error;
  const json::value document = json::parse(reply->body, error);
  const json::value* data =
      error || !document.is_object() ? nullptr : document.as_object().if_contains("data");
  if (reply->status != 200 || data == nullptr || !data->is_object())
    return Error::make(ErrorCode::kUnavailable,
                       fmt::format("GET /api/v1/alerts on the Prometheus: HTTP {}: {}",
                                   reply->status, reply->body.substr(0, 300)));
  std::set<std::string> seen;
  const json::value* alerts = data->as_object().if_contains("alerts");
  if (alerts == nullptr || !alerts->is_array()) return seen;
  for (const auto& entry : alerts->as_array()) {
    const json::object& labels = entry.at("labels").as_object();
    const json::value* name = labels.if_contains("alertname");
    const json::value* alert = labels.if_contains("alert");
    if (name == nullptr || *name != kRule || alert == nullptr || !alert->is_string()) continue;
    seen.insert(std::string(alert->as_string()) + " " + std::string(entry.at("state").as_string()));
  }
  return seen;
}

// The labels of `after` whose alert was not already in `before` (whatever its state there).
std::optional<std::string> new_rule_alert(const std::set<std::string>& before,
                                          const std::set<std::string>& after) {
  for (const auto& seen : after) {
    const std::string label = seen.substr(0, seen.find(' '));
    const bool known = std::any_of(before.begin(), before.end(), [&](const std::string& old) {
      return old.substr(0, old.find(' ')) == label;
    });
    if (!known) return seen;
  }
  return std::nullopt;
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

bool DrillReport::passed() const {
  return !steps.empty() &&
         std::all_of(steps.begin(), steps.end(), [](const DrillStep& step) { return step.passed; });
}

namespace {

// Runs `action` once: at run(), or on the way out of its scope (an exception's way too).
struct RunOnce {
  std::function<void()> action;
  ~RunOnce() { run(); }
  void run() {
    if (action) std::exchange(action, nullptr)();
  }
};

Result<DrillReport> run_steps(const DrillOptions& options,
                              const std::function<void(const std::string&)>& progress) {
  auto url = parse_http_url(options.url, "--url");
  if (!url) return url.error();
  if (url->path.ends_with("/")) url->path.pop_back();
  const Server server(*url, options);
  std::optional<HttpUrl> prometheus;
  if (!options.prometheus_url.empty()) {
    auto parsed = parse_http_url(options.prometheus_url, "--prometheus");
    if (!parsed) return parsed.error();
    if (parsed->path.ends_with("/")) parsed->path.pop_back();
    prometheus = std::move(*parsed);
  }
  DrillReport report;
  const auto drill_start = Clock::now();
  auto injected_at = drill_start;  // until the injection: times are from the start
  const auto say = [&](const std::string& line) {
    progress(fmt::format("[{:7.1f} s] {}", seconds_between(injected_at, Clock::now()), line));
  };
  const auto step = [&](std::string name, bool passed, std::string detail, bool timed = true) {
    std::optional<double> at;
    if (timed) at = seconds_between(injected_at, Clock::now());
    say(fmt::format("{} {}: {}", passed ? "PASS" : "FAIL", name, detail));
    report.steps.push_back({std::move(name), passed, at, std::move(detail)});
  };

  // Preflight: nothing is injected unless every part the drill needs answers.
  say("preflight: " + options.url);
  if (auto ready = server.call("GET", "/ready", false); !ready || ready->status != 200) {
    return Error::make(ErrorCode::kUnavailable,
                       ready ? fmt::format("GET /ready: HTTP {} (not ready)", ready->status)
                             : ready.error().message);
  }
  for (const char* path : {"/admin/faults", "/admin/shed"}) {
    if (auto checked = server.json_of("GET", path, true); !checked) return checked.error();
  }
  if (auto alerts = server.json_of("GET", "/v1/alerts", false); !alerts) {
    return Error::make(ErrorCode::kUnavailable,
                       alerts.error().message + " (is the anomaly watch on? --anomaly on)");
  }
  std::set<std::string> rules_before;  // kRule's alerts already there: not the drill's
  if (prometheus) {
    auto listed = rule_alerts(*prometheus);
    if (!listed) return listed.error();
    rules_before = std::move(*listed);
  }
  step("preflight", true,
       prometheus ? "ready; admin key, faults, shedding, alerts and the Prometheus answer"
                  : "ready; admin key, faults, shedding and alerts answer",
       false);

  LoadOptions load_options;
  load_options.url = *url;
  load_options.api_key = options.api_key;
  load_options.workers = std::max(2, options.workers);
  load_options.max_tokens = options.max_tokens;
  load_options.classes = {kProtected, kTargeted};
  load_options.request_timeout = options.request_timeout;
  load_options.max_duration = options.learn_timeout + options.settle + options.baseline +
                              options.detect_timeout + options.recover_timeout +
                              std::chrono::seconds(60);
  SteadyLoad load(load_options);
  load.start();
  const auto settled_at = Clock::now() + options.settle;
  std::optional<std::uint64_t> fault_id;
  bool shed = false;
  // Whatever happens from here (an answer the drill cannot read included), the server is left
  // as it was found.
  RunOnce restore_once{[&] {
    if (fault_id) server.call("DELETE", fmt::format("/admin/faults/{}", *fault_id), true);
    if (shed) server.call("DELETE", "/admin/shed", true);
    load.stop();
  }};
  const auto restore = [&] { restore_once.run(); };
  const auto p99 = [&](Clock::time_point from, Clock::time_point to) {
    return percentile_seconds(load.samples(), kProtected, from, to, 99, kMinSamples);
  };

  // Learn: the detectors must know the steady load before anything changes.
  say(fmt::format("learn: a steady load of {} workers ({} and {}), waiting for the detectors",
                  load_options.workers, kProtected, kTargeted));
  // The server's latency windows should hold the steady load only before the baseline.
  if (auto stats = server.json_of("GET", "/v1/stats", false)) {
    const json::value* window = stats->if_contains("window_s");
    if (window != nullptr && window->is_int64() && window->as_int64() > options.settle.count())
      say(
          fmt::format("learn: --settle-seconds {} is shorter than the server's latency window "
                      "({} s): what the load's start did is still in it at the injection",
                      options.settle.count(), window->as_int64()));
  }
  std::set<std::string> before;  // latency alerts raised before the injection: false alerts
  std::set<std::string> active;  // latency alerts active when learning ended
  bool learned = false;
  const auto learn_deadline = std::max(Clock::now() + options.learn_timeout, settled_at);
  auto next_line = Clock::now();
  while (Clock::now() < learn_deadline) {
    auto alerts = server.json_of("GET", "/v1/alerts", false);
    if (alerts && learnt(*alerts) && Clock::now() >= settled_at) {
      // An active alert cannot be raised again: the drill waits (within the learn timeout)
      // for those the load's start raised to clear, so that each signal can detect.
      learned = true;
      active = active_latency_alerts(*alerts);
      if (active.empty()) break;
    }
    if (Clock::now() >= next_line) {
      say(active.empty() ? fmt::format("learn: {} requests answered so far", load.samples().size())
                         : fmt::format("learn: waiting for {} to clear", fmt::join(active, ", ")));
      next_line = Clock::now() + std::chrono::seconds(5);
    }
    std::this_thread::sleep_for(options.poll);
  }
  if (!learned) {
    step("learn", false, "the detector of e2e_p99.normal did not finish learning in time");
    restore();
    return report;
  }
  step("learn", true,
       active.empty() ? std::string("the detectors know the steady load")
                      : fmt::format("the detectors know the steady load; still active (these "
                                    "cannot raise again): {}",
                                    fmt::join(active, ", ")),
       false);

  // Baseline.
  // False alerts are those raised during this steady window; the ones raised while the load
  // began (a real change from idle, before the detectors knew it) are not counted.
  std::set<std::string> at_start;
  if (auto alerts = server.json_of("GET", "/v1/alerts", false)) at_start = latency_alerts(*alerts);
  const auto baseline_from = Clock::now();
  say(fmt::format("baseline: measuring p99 of {} over {} s", kProtected, options.baseline.count()));
  std::this_thread::sleep_for(options.baseline);
  const auto baseline = p99(baseline_from, Clock::now());
  if (auto alerts = server.json_of("GET", "/v1/alerts", false)) before = latency_alerts(*alerts);
  for (const std::string& alert : before) {
    if (!at_start.contains(alert)) report.steady_alerts.push_back(alert);
  }
  report.alerts_while_steady = report.steady_alerts.size();
  if (!baseline) {
    step("baseline", false, "too few requests of class normal answered to take a p99");
    restore();
    return report;
  }
  report.baseline_p99_ms = *baseline * 1e3;
  step("baseline", true,
       fmt::format("p99 {:.0f} ms; {} latency alert(s) raised while steady{}{}",
                   report.baseline_p99_ms, report.alerts_while_steady,
                   report.steady_alerts.empty() ? "" : ": ", fmt::join(report.steady_alerts, ", ")),
       false);

  // Inject: each decode step a low request takes part in waits `delay`; a normal request shares
  // most of its steps with one, so up to max_tokens delays are added to it. Measured: a delay of
  // baseline / max_tokens raised p99 about 1.5 times; 1.5 times that delay about doubles it
  // (so 1.5 x (spike - 1) times it for about `spike` times).
  report.delay_ms = options.delay_ms > 0
                        ? options.delay_ms
                        : std::max(5.0, 1.5 * (options.spike - 1) * report.baseline_p99_ms /
                                            std::max(1, options.max_tokens));
  const auto expires = options.detect_timeout + options.recover_timeout + std::chrono::seconds(60);
  auto fault = server.json_of(
      "POST", "/admin/faults", true,
      fmt::format(R"({{"stage":"decode","kind":"delay","delay_ms":{:.0f},"class":"{}",)"
                  R"("percent":100,"expires_s":{}}})",
                  report.delay_ms, kTargeted, expires.count()));
  if (!fault) {
    step("inject", false, fault.error().message);
    restore();
    return report;
  }
  fault_id = fault->at("id").to_number<std::uint64_t>();
  injected_at = Clock::now();
  step("inject", true,
       fmt::format("fault {}: decode delay {:.0f} ms per step on class {}", *fault_id,
                   report.delay_ms, kTargeted));

  // Detect.
  const auto detect_deadline = injected_at + options.detect_timeout;
  double highest_score = -1;
  std::string highest;  // the latency signal nearest to raising, for a detection that failed
  while (Clock::now() < detect_deadline && !report.detect_s) {
    if (auto alerts = server.json_of("GET", "/v1/alerts", false)) {
      note_highest_score(*alerts, highest_score, highest);
      for (const auto& seen : latency_alerts(*alerts)) {
        if (before.contains(seen)) continue;
        report.detect_s = seconds_between(injected_at, Clock::now());
        report.alert = seen.substr(0, seen.find('@'));
        break;
      }
    }
    if (!report.detect_s) std::this_thread::sleep_for(options.poll);
  }
  step("detect", report.detect_s.has_value(),
       report.detect_s
           ? fmt::format("alert {} raised", report.alert)
           : fmt::format("no latency alert within {} s{}{}", options.detect_timeout.count(),
                         highest.empty() ? "" : "; highest: ", highest));

  // The rule: Prometheus, scraping the server, turns the detector's alert into its own.
  if (prometheus && report.detect_s) {
    const auto rule_deadline = Clock::now() + options.detect_timeout;
    std::string why =
        fmt::format("{} did not follow within {} s", kRule, options.detect_timeout.count());
    while (Clock::now() < rule_deadline && !report.rule_s) {
      auto listed = rule_alerts(*prometheus);
      if (!listed) {
        why = listed.error().message;
      } else if (auto seen = new_rule_alert(rules_before, *listed)) {
        report.rule_s = seconds_between(injected_at, Clock::now());
        report.rule = fmt::format("{}{{alert=\"{}\"}} {}", kRule, seen->substr(0, seen->find(' ')),
                                  seen->substr(seen->find(' ') + 1));
        break;
      }
      std::this_thread::sleep_for(options.poll);
    }
    step("rule", report.rule_s.has_value(), report.rule_s ? report.rule : why);
  }

  // The spike, as the customers of the protected class saw it: over the requests sent since the
  // injection, once enough of them have been answered (a detection can come before).
  auto spike = p99(injected_at, Clock::now());
  const auto spike_deadline = Clock::now() + options.detect_timeout;
  while (!spike && Clock::now() < spike_deadline) {
    std::this_thread::sleep_for(options.poll);
    spike = p99(injected_at, Clock::now());
  }
  report.spike_p99_ms = spike.value_or(0) * 1e3;
  step("spike", spike && *spike >= kSpikeRatio * *baseline,
       fmt::format("p99 {:.0f} ms under the fault ({:.1f}x the baseline)", report.spike_p99_ms,
                   report.spike_p99_ms / report.baseline_p99_ms));

  // The slow requests show the injected stage.
  std::string marked;
  if (auto traces = server.json_of("GET", "/v1/traces?limit=50", true)) {
    for (const auto& trace : traces->at("traces").as_array()) {
      for (const auto& stage : trace.at("stages").as_array()) {
        if (stage.at("name").as_string() == "fault decode" && marked.empty())
          marked = std::string(trace.at("trace_id").as_string());
      }
    }
  }
  step("trace", !marked.empty(),
       marked.empty() ? "no kept trace shows \"fault decode\" (are the slow requests over "
                        "--trace-slow-ms? is tracing on?)"
                      : "trace " + marked + " shows the stage \"fault decode\"");

  // Mitigate: the runbook's first relief, shedding the low class.
  auto relief =
      server.json_of("POST", "/admin/shed", true, fmt::format(R"({{"class":"{}"}})", kTargeted));
  shed = relief.ok();
  report.mitigation =
      fmt::format("shed the {} class: POST /admin/shed {{\"class\":\"{}\"}}", kTargeted, kTargeted);
  if (shed) report.mitigate_s = seconds_between(injected_at, Clock::now());
  const auto mitigated_at = Clock::now();
  step("mitigate", shed, shed ? report.mitigation : relief.error().message);

  // Recover: p99 of requests sent since the relief, over the last window, back near baseline.
  const auto recover_deadline = mitigated_at + options.recover_timeout;
  next_line = Clock::now();
  while (shed && Clock::now() < recover_deadline && !report.recover_s) {
    std::this_thread::sleep_for(options.poll);
    const auto now = Clock::now();
    const auto from = std::max(mitigated_at, now - options.window);
    const auto current = p99(from, now);
    if (current && *current <= *baseline * options.recovered_ratio) {
      report.recover_s = seconds_between(injected_at, now);
      report.recovered_p99_ms = *current * 1e3;
    } else if (now >= next_line) {
      say(current ? fmt::format("recover: p99 {:.0f} ms (baseline {:.0f} ms)", *current * 1e3,
                                report.baseline_p99_ms)
                  : "recover: waiting for requests sent since the relief");
      next_line = now + std::chrono::seconds(5);
    }
  }
  step("recover", report.recover_s.has_value(),
       report.recover_s
           ? fmt::format("p99 {:.0f} ms, within {:.0f}% of the baseline", report.recovered_p99_ms,
                         (options.recovered_ratio - 1) * 100)
           : fmt::format("p99 not back within {:.0f}% of the baseline in {} s",
                         (options.recovered_ratio - 1) * 100, options.recover_timeout.count()));

  restore();
  for (const auto& sample : load.samples()) {
    ++report.requests;
    const bool shed_refusal = sample.status == 503 && sample.priority == kTargeted;
    if (sample.status == 0 || (sample.status >= 500 && !shed_refusal)) ++report.failed_requests;
  }
  say(fmt::format("done: {} requests, {} failed; the fault removed and every class served again",
                  report.requests, report.failed_requests));
  return report;
}

}  // namespace

Result<DrillReport> run_latency_spike(const DrillOptions& options,
                                      const std::function<void(const std::string&)>& progress) {
  // Boost.JSON's accessors throw on an answer of another shape than the drill reads (a server
  // of another version, a proxy's page, Prometheus's errors): a clear error, not an abort; the
  // steps' guard has restored the server by the time it arrives here.
  try {
    return run_steps(options, progress);
  } catch (const std::exception& error) {
    return Error::make(
        ErrorCode::kCorrupt,
        fmt::format("an answer of {} is not what the drill reads: {}", options.url, error.what()));
  }
}

}  // namespace supportd::drill
