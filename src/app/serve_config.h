// Everything `supportd serve` can be told, from flags and from a TOML config file (--config).
// Each option is declared once, in serve_options.cpp, by section (its table in the file):
// name, help, default, what it accepts, where it goes in ServeConfig. Flags win over the
// file; the file wins over the defaults. `serve --help` lists them all by section.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/common.h>

#include "api/access.h"
#include "api/admin_key.h"
#include "app/desk_setup.h"
#include "app/model_versions.h"
#include "app/option_table.h"
#include "bus/topology.h"
#include "core/status.h"
#include "engine/llama/llama_engine.h"
#include "engine/router/canary_check.h"
#include "engine/router/shadow_queue.h"
#include "engine/upstream/upstream_engine.h"
#include "http/cross_origin.h"
#include "http/server.h"
#include "obs/anomaly/signal_monitor.h"
#include "obs/faults/fault_injector.h"
#include "obs/leak_watchdog.h"

namespace CLI {
class App;
}

namespace supportd::app {

// The anomaly watch over the serving signals (api/anomaly_watch.h).
struct AnomalyConfig {
  bool on = true;
  std::chrono::milliseconds interval{1000};  // between readings of every signal
  // The latency percentiles the watch reads (and /v1/stats shows) are over the requests that
  // ended this recently.
  std::chrono::seconds latency_window{60};
  obs::anomaly::MonitorOptions monitor;
  obs::LeakOptions leak;
};

// How log lines are written on stderr: spdlog's text lines, or one JSON object per line.
enum class LogFormat { kText, kJson };

// Tracing (obs/trace): what serve's trace section sets; the OTEL_* environment variables fill
// what the flags leave out (app/tracing_setup.h).
struct TracingConfig {
  bool enabled = true;
  std::string otlp_endpoint;  // a collector's base URL: spans go to <it>/v1/traces
  double sample_ratio = 1.0;  // of the traces started here; a caller's sampled flag wins
  double slow_ms = 1000;      // slower requests are kept, logged and listed; 0: none
  int ring_traces = 256;      // kept slow or failed traces behind GET /v1/traces
  int queue_spans = 16384;    // spans waiting for the exporter at most; more are dropped
};

// Which part of a cluster this process is (docs/operations.md, "Scale-out"): everything in
// one process, a gateway (HTTP, desk, sessions, admission; requests run on engine nodes over
// NATS) or an engine node (a model that pulls requests from NATS; over HTTP only /health,
// /ready and /metrics).
enum class Role { kAll, kGateway, kEngine };

struct ClusterConfig {
  Role role = Role::kAll;
  std::string nats_url;  // required by gateway and engine
  std::string node_id;   // unique in the cluster; empty: host name, pid and a random suffix
  bus::ClusterSettings settings;
  std::chrono::milliseconds drain{10000};  // an engine node's held requests get this to end
};

// What serve runs with: complete once ServeOptions::finish() has succeeded.
struct ServeConfig {
  spdlog::level::level_enum log_level = spdlog::level::info;
  LogFormat log_format = LogFormat::kText;
  TracingConfig tracing;
  std::string demo_preset;  // synthesized when there is neither --model nor --upstream
  engine::llama::EngineOptions engine;
  // --model as given, one entry per flag (or engine.model in the file): one bare path sets
  // engine.model_path; NAME=PATH entries become `models`.
  std::vector<std::string> model_flags;
  // Named versions served side by side through the router (engine/router): from NAME=PATH
  // flags, else the config file's [[models]]. Empty: one model, as engine.model_path says.
  std::vector<ModelVersion> models;
  engine::upstream::UpstreamOptions upstream;
  http::ServerOptions http;
  http::CrossOrigin cross_origin;
  std::chrono::seconds shutdown_grace{0};  // for requests in flight on SIGTERM
  std::string port_file;  // written with the bound port once listening (for scripts and tests)
  std::vector<api::ApiKey> api_keys;  // [[api_keys]] tables in the config file
  DeskConfig desk;
  AnomalyConfig anomaly;
  ClusterConfig cluster;
  api::AdminKey admin_key;  // [admin]: what /admin routes require (none: they answer 404)
  bool faults = false;      // POST /admin/faults allowed (needs the admin key)
  obs::faults::FaultLimits fault_limits;
  bool auto_rollback = true;  // with named model versions (engine/router/canary_check.h)
  engine::router::CanaryLimits canary;
  engine::router::ShadowLimits shadow;  // the shadow queue's bounds (engine/router/shadow_queue.h)
};

// The options of `serve`, declared on its CLI11 command, bound to a ServeConfig.
// Thread-safety: none; main's thread builds, parses and finishes.
class ServeOptions {
 public:
  // Declares every option on `command`; `config` receives the values. Both must outlive this.
  ServeOptions(CLI::App& command, ServeConfig& config);
  // After CLI11 has parsed: the config file for what the flags did not give, every check,
  // then the settings that follow from several options. Errors (kInvalidArgument) name the
  // flag, or the file and line.
  Status finish();

  const OptionTable& table() const { return table_; }

 private:
  void derive();         // settings that follow from several options, once all are valid
  Status take_models();  // --model's entries, or the file's [[models]], into the config

  ServeConfig& config_;
  OptionTable table_;
};

// Declares serve's options on `table`, by section, bound to `config`, with the rules across
// them (serve_options.cpp).
void declare_serve_options(OptionTable& table, ServeConfig& config);

}  // namespace supportd::app
