// The sections of `supportd serve`'s options that operate it rather than serve with it:
// tracing, the anomaly watch, the scale-out roles and administration (the admin key, faults).
// Declared as serve_options.cpp declares the others (one line per option, by section), kept apart
// so each file stays one screenful of sections.
#include <fmt/format.h>

#include "app/serve_config.h"
#include "app/serve_option_sections.h"
#include "core/http_url.h"

namespace supportd::app {

using std::chrono::milliseconds;

const Choices<bool> kOnOff{{"on", true}, {"off", false}};

namespace {

const Choices<Role> kRoles{
    {"all", Role::kAll}, {"gateway", Role::kGateway}, {"engine", Role::kEngine}};

}  // namespace

void declare_tracing(OptionTable& table, ServeConfig& config) {
  OptionSection trace = table.section("trace", "Tracing (OpenTelemetry)");
  TracingConfig& t = config.tracing;
  trace.choice("tracing", t.enabled, kOnOff, true,
               "Spans for every request (W3C traceparent in and out, slow-request lines, "
               "GET /v1/traces); off: none of it");
  trace
      .value("otlp-endpoint", t.otlp_endpoint, "",
             "OTLP/HTTP collector base URL (http://host:4318): spans are POSTed as protobuf to "
             "<URL>/v1/traces (default: $OTEL_EXPORTER_OTLP_ENDPOINT; none: no export)")
      .check([](const std::string& url, const std::string& shown) -> Status {
        if (auto parsed = parse_http_url(url, shown); !parsed) return parsed.error();
        return {};
      });
  trace
      .value("trace-sample", t.sample_ratio, 1.0,
             "Share of new traces exported, 0 to 1 (a caller's sampled traceparent is always "
             "followed; failed and slow requests are kept whatever the ratio)")
      .between(0.0, 1.0);
  trace
      .value("trace-slow-ms", t.slow_ms, 1000.0,
             "Requests slower than this (time to first byte when streamed) are kept, logged "
             "with their stage breakdown and listed by GET /v1/traces; 0: none")
      .at_least(0.0)
      .unit("ms");
  trace.value("trace-ring", t.ring_traces, 256, "Slow or failed traces kept in memory")
      .between(1, 100000);
  trace
      .value("otlp-queue-spans", t.queue_spans, 16384,
             "Spans waiting for the exporter at most (sent in batches of an eighth of it, up "
             "to 2048); more are dropped and counted")
      .between(1, 1 << 22);
}

void declare_anomaly(OptionTable& table, ServeConfig& config) {
  OptionSection anomaly = table.section("anomaly", "Anomaly alerts");
  AnomalyConfig& a = config.anomaly;
  obs::anomaly::AlertOptions& alert = a.monitor.alert;
  anomaly.choice("anomaly", a.on, kOnOff, true,
                 "Watch latency, queues, throughput, refusals, errors and memory for anomalies "
                 "(GET /v1/alerts, supportd_alert_active in /metrics)");
  anomaly
      .duration<milliseconds>("anomaly-interval-ms", a.interval, 1000,
                              "Time between two readings of every watched signal")
      .between(10, 60000);
  anomaly
      .duration<std::chrono::seconds>(
          "latency-window-seconds", a.latency_window, 60,
          "The latency percentiles watched (and shown by /v1/stats) are over the requests that "
          "ended this recently (shorter: a change shows sooner, a quiet class is skipped sooner)")
      .between(1, 3600);
  anomaly
      .value("anomaly-raise", alert.raise, 0.78,
             "Anomaly score at which an alert is raised (higher: fewer, later alerts)")
      .between(0.5, 1.0);
  anomaly
      .value("anomaly-clear", alert.clear, 0.62,
             "Anomaly level a signal must stay under for an alert to clear")
      .between(0.0, 1.0);
  anomaly
      .value("anomaly-clear-after", alert.clear_after, std::size_t{60},
             "Readings in a row under --anomaly-clear that clear an alert")
      .between(1, 86400);
  anomaly
      .value("anomaly-recent", a.monitor.kept_ended, std::size_t{50},
             "Ended alerts GET /v1/alerts lists")
      .between(0, 10000);
  anomaly
      .value("leak-alert-mb-per-1000", a.leak.alert_mb_per_1000, 200.0,
             "Growth of anonymous memory per 1,000 requests, kept up over the leak watchdog's "
             "last 5 checkpoints, that raises the memory_leak alert (MB)")
      .at_least(0.0);
  anomaly
      .value("leak-every-requests", a.leak.every_requests, std::size_t{1000},
             "Requests between two checkpoints of the leak watchdog")
      .at_least(1);
  anomaly
      .value("leak-warm-up-requests", a.leak.warm_up_requests, std::size_t{5000},
             "Requests before the leak watchdog's first checkpoint (the caches fill up first)")
      .at_least(0);
  table.rule([&alert] {
    if (alert.clear <= alert.raise) return Status();
    return Status(Error::invalid(fmt::format(
        "--anomaly-clear {} is above --anomaly-raise {}: an alert clears below where it rises",
        alert.clear, alert.raise)));
  });
}

// The scale-out roles: which part of a cluster this process is and how it reaches NATS.
void declare_cluster(OptionTable& table, ServeConfig& config) {
  OptionSection cluster = table.section("cluster", "Scale-out over NATS JetStream");
  ClusterConfig& c = config.cluster;
  cluster.choice("role", c.role, kRoles, Role::kAll,
                 "all: one process; gateway: HTTP, desk and sessions, requests run on engine "
                 "nodes; engine: a model serving gateways (HTTP: /health, /ready, /metrics)");
  cluster.value("nats", c.nats_url, "",
                "NATS server with JetStream, nats://host:port (comma-separated for several); "
                "required by --role gateway and engine");
  cluster.value("node-id", c.node_id, "",
                "This gateway's or engine's id in the cluster: letters, digits and '-' (default: "
                "host name, pid and a random suffix)");
  cluster
      .duration<milliseconds>("ack-wait-ms", c.settings.ack_wait, 4000,
                              "A request whose engine went silent this long is resumed on "
                              "another engine")
      .at_least(500);
  cluster
      .value("max-deliver", c.settings.max_deliver, 5,
             "Engines one request may be tried on before it ends with an error")
      .between(1, 100);
  cluster
      .value("cluster-queue", c.settings.queue_bound, 1024,
             "Requests per priority class queued in the cluster before more are refused (429)")
      .at_least(1);
  cluster
      .duration<milliseconds>("drain-ms", c.drain, 10000,
                              "On SIGTERM an engine node lets its requests end this long, then "
                              "hands the rest to other engines")
      .at_least(0);
  table.rule([&c] {
    if (c.role != Role::kAll && c.nats_url.empty())
      return Status(Error::invalid(fmt::format("--role {} needs --nats URL", kRoles.name(c.role))));
    if (c.role == Role::kAll && !c.nats_url.empty())
      return Status(Error::invalid("--nats is for --role gateway or engine"));
    if (c.node_id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789-") != std::string::npos)
      return Status(
          Error::invalid("--node-id " + c.node_id + " may hold only letters, digits and '-'"));
    return Status();
  });
  table.rule([&config] {
    if (config.cluster.role != Role::kGateway) return Status();
    if (!config.model_flags.empty() || !config.upstream.url.empty())
      return Status(Error::invalid(
          "--role gateway runs no model: --model and --upstream belong to the engine nodes"));
    return Status();
  });
}

// The admin key the /admin routes require, and fault injection behind it.
void declare_admin(OptionTable& table, ServeConfig& config) {
  OptionSection admin = table.section("admin", "Administration (/admin routes)");
  admin.parsed<api::AdminKey>(
      "admin-key-file", config.admin_key, "",
      [](std::string_view file) -> Result<api::AdminKey> {
        if (file.empty()) return api::AdminKey();
        return api::AdminKey::read(std::string(file));
      },
      "File holding the admin key (one line, at least 16 characters) that /admin routes "
      "require as 'Authorization: Bearer KEY'; none: /admin routes answer 404");
  admin.value("faults", config.faults, false,
              "Allow fault injection (POST /admin/faults) for drills; needs --admin-key-file");
  obs::faults::FaultLimits& limits = config.fault_limits;
  admin
      .value("faults-max", limits.max_faults, std::size_t{8},
             "Faults armed at once at most (more are refused with 409)")
      .between(1, 1000);
  admin
      .duration<std::chrono::seconds>("faults-max-seconds", limits.max_expiry, 3600,
                                      "Longest a fault may stay armed before it expires")
      .between(1, 86400);
  admin.value("auto-rollback", config.auto_rollback, true,
              "With named model versions: roll a deployment's split back by itself when a "
              "canary's TTFT p99, error rate or refusal rate is worse than the stable version's");
  engine::router::CanaryLimits& canary = config.canary;
  admin
      .value("canary-min-requests", canary.min_requests, 200,
             "Requests on each of canary and stable before --auto-rollback judges")
      .between(10, 1000000);
  admin
      .value("canary-ttft-ratio", canary.ttft_p99_ratio, 1.5,
             "A canary's TTFT p99 over the stable version's that trips --auto-rollback")
      .between(1.01, 100.0);
  admin
      .value("canary-rate-margin", canary.rate_margin, 0.05,
             "An error or refusal rate this much above the stable version's (and 3 standard "
             "errors above) trips --auto-rollback")
      .between(0.001, 1.0);
  admin
      .value("shadow-queue", config.shadow.capacity, std::size_t{16},
             "Shadow copies waiting to start at most (PUT /admin/routes with a shadow); one "
             "more is dropped and counted")
      .between(1, 10000);
  admin
      .value("shadow-concurrency", config.shadow.concurrency, 2,
             "Shadow copies running on their versions at once, in the lowest priority class")
      .between(1, 256);
  admin
      .duration<milliseconds>("shadow-max-age-ms", config.shadow.max_age, 60000,
                              "A shadow copy not ended this long after its request came is "
                              "given up (it computes only in the callers' gaps) and counted "
                              "as expired")
      .between(100, 3600000);
  table.rule([&config] {
    if (config.faults && !config.admin_key.configured())
      return Status(
          Error::invalid("--faults needs --admin-key-file: faults are armed through "
                         "/admin/faults, which the admin key guards"));
    return Status();
  });
}

}  // namespace supportd::app
