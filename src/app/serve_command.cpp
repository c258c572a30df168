// `supportd serve`: load the model (or connect to an upstream, or to the cluster's engine nodes
// with --role gateway), start the HTTP server, run until SIGINT/SIGTERM, then shut down
// gracefully. With --role engine the model serves the cluster over NATS (bus/engine_worker.h)
// and HTTP carries the probes only.
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "api/access.h"
#include "api/anomaly_watch.h"
#include "api/fault_handlers.h"
#include "api/load_shedding.h"
#include "api/routes.h"
#include "api/serving_metrics.h"
#include "app/commands.h"
#include "app/desk_setup.h"
#include "app/hub_relay.h"
#include "app/log_format.h"
#include "app/router_setup.h"
#include "app/serve_config.h"
#include "app/tracing_setup.h"
#include "bus/connection.h"
#include "bus/engine_worker.h"
#include "bus/worker_metrics.h"
#include "engine/llama/llama_engine.h"
#include "engine/remote/remote_engine.h"
#include "engine/remote/remote_metrics.h"
#include "engine/router/router_metrics.h"
#include "engine/upstream/upstream_engine.h"
#include "http/server.h"
#include "model/synth.h"
#include "obs/metrics.h"
#include "obs/trace/tracer.h"
#include "store/shared_rate_limiter.h"

namespace supportd::app {
namespace {

void raise_file_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
  }
}

// True when SIGINT or SIGTERM arrived while starting (they are blocked until sigwait, so they
// wait as pending): loading, importing and warming up can take seconds, and a stop request
// must not wait for all of them.
bool stop_requested(const sigset_t& signals) {
  sigset_t pending;
  sigemptyset(&pending);
  if (sigpending(&pending) != 0) return false;
  for (int signal_number : {SIGINT, SIGTERM}) {
    if (sigismember(&signals, signal_number) && sigismember(&pending, signal_number)) return true;
  }
  return false;
}

// The link to the cluster's NATS server, for --role gateway and engine (null for all).
Result<std::unique_ptr<bus::Connection>> connect_cluster(const ClusterConfig& cluster) {
  if (cluster.role == Role::kAll) return std::unique_ptr<bus::Connection>();
  bus::ConnectionOptions options;
  options.url = cluster.nats_url;
  options.name = std::string("supportd-") +
                 (cluster.role == Role::kGateway ? "gateway" : "engine") +
                 (cluster.node_id.empty() ? "" : "-" + cluster.node_id);
  return bus::Connection::open(options);
}

Result<std::unique_ptr<engine::Engine>> make_engine(ServeConfig& config, bus::Connection* nats) {
  if (config.cluster.role == Role::kGateway) {
    engine::remote::RemoteOptions options;
    options.gateway_id = config.cluster.node_id;
    options.cluster = config.cluster.settings;
    auto remote = engine::remote::RemoteEngine::create(*nats, options);
    if (!remote) return remote.error();
    spdlog::info("gateway {} on {}", (*remote)->gateway_id(), config.cluster.nats_url);
    return std::unique_ptr<engine::Engine>(std::move(remote).value());
  }
  if (!config.upstream.url.empty()) {
    auto upstream = engine::upstream::UpstreamEngine::create(config.upstream);
    if (!upstream) return upstream.error();
    return std::unique_ptr<engine::Engine>(std::move(upstream).value());
  }
  if (!config.models.empty()) {
    auto router = build_router(config);
    if (!router) return router.error();
    return std::unique_ptr<engine::Engine>(std::move(router).value());
  }
  if (config.engine.model_path.empty()) {
    auto path = model::synthesize_cached(config.demo_preset, "q8_0");
    if (!path) return path.error();
    config.engine.model_path = *path;
    spdlog::warn(
        "no --model given: serving the synthesized {} demo model (random weights, its "
        "text is meaningless). Pass --model FILE.gguf to serve a real model.",
        config.demo_preset);
  }
  auto llama = engine::llama::LlamaEngine::create(config.engine);
  if (!llama) return llama.error();
  return std::unique_ptr<engine::Engine>(std::move(llama).value());
}

int run_serve(ServeConfig& config, ServeOptions& options) {
  if (Status status = options.finish(); !status) {
    fmt::print(stderr, "error: {}\n", status.error().message);
    return 2;
  }
  spdlog::set_level(config.log_level);
  use_log_format(config.log_format);
  std::optional<obs::trace::TracerOptions> tracing;
  if (config.tracing.enabled) {
    auto traced = tracer_options(config.tracing, process_environment);
    if (!traced) {
      fmt::print(stderr, "error: {}\n", traced.error().message);
      return 2;
    }
    tracing = std::move(traced).value();
  }

  // Signals are taken by this thread alone (sigwait below); every thread started from here
  // on inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  raise_file_limit();

  auto nats = connect_cluster(config.cluster);
  if (!nats) {
    fmt::print(stderr, "error: {}\n", nats.error().message);
    return 1;
  }
  auto engine = make_engine(config, nats->get());
  if (!engine) {
    fmt::print(stderr, "error: {}\n", engine.error().message);
    return 1;
  }
  std::unique_ptr<bus::EngineWorker> worker;  // --role engine: pulls the cluster's requests
  if (config.cluster.role == Role::kEngine) {
    bus::WorkerOptions options;
    options.engine_id = config.cluster.node_id;
    options.slots = config.engine.parallel;
    options.cluster = config.cluster.settings;
    auto started = bus::EngineWorker::start(**nats, **engine, options);
    if (!started) {
      fmt::print(stderr, "error: {}\n", started.error().message);
      (*engine)->shutdown();
      return 1;
    }
    worker = std::move(started).value();
    spdlog::info("engine node {} on {} ({} slots)", worker->engine_id(), config.cluster.nats_url,
                 options.slots);
  }
  if (stop_requested(signals)) {
    spdlog::info("stopped while starting");
    (*engine)->shutdown();
    return 0;
  }
  // With Redis, a key's rate limit is one limit across every gateway that shares it.
  std::unique_ptr<store::SharedRateLimiter> shared_limits;
  if (!config.desk.redis.empty() && config.cluster.role != Role::kEngine) {
    auto address = store::RedisClient::parse_address(config.desk.redis);
    if (!address) {
      fmt::print(stderr, "error: --redis: {}\n", address.error().message);
      (*engine)->shutdown();
      return 2;
    }
    shared_limits = std::make_unique<store::SharedRateLimiter>(std::move(address).value());
  }
  api::Access access(config.api_keys, std::move(shared_limits));
  obs::Registry registry;
  api::ServingMetrics metrics(registry, **engine, config.anomaly.latency_window);
  // Before the desk and the server, whose requests hold traces, and after the registry.
  std::unique_ptr<obs::trace::Tracer> tracer;
  if (tracing) {
    const bool exporting = tracing->exporter.has_value();
    const std::string url = exporting
                                ? tracing->exporter->url.host + ":" + tracing->exporter->url.port +
                                      tracing->exporter->url.path
                                : "";
    tracer = std::make_unique<obs::trace::Tracer>(std::move(*tracing), &registry);
    spdlog::info("tracing on: slow requests over {} ms kept{}", config.tracing.slow_ms,
                 exporting ? fmt::format(", spans exported to http://{} (sample ratio {})", url,
                                         config.tracing.sample_ratio)
                           : "; no OTLP endpoint, nothing exported");
  }
  if (worker) bus::expose_worker_metrics(registry, *worker);
  if (const auto* remote = dynamic_cast<const engine::remote::RemoteEngine*>(engine->get()))
    engine::remote::expose_remote_metrics(registry, *remote);
  const bool engine_node = config.cluster.role == Role::kEngine;
  if (!engine_node && !access.keys_required()) {
    spdlog::warn(
        "no [[api_keys]] in a config file: every caller is the tenant 'anonymous' and may use the "
        "agent console's routes (docs/operations.md, Security)");
  }
  // Before the desk, whose turns ask it at their stages.
  std::optional<obs::faults::FaultInjector> faults;
  if (config.faults) {
    faults.emplace(config.fault_limits, &registry);
    spdlog::warn("fault injection allowed (--faults): POST /admin/faults arms faults for drills");
  }
  auto desk = engine_node
                  ? Result<std::unique_ptr<DeskParts>>(std::unique_ptr<DeskParts>())
                  : build_desk(config.desk, **engine, registry, faults ? &*faults : nullptr);
  if (!desk) {
    fmt::print(stderr, "error: {}\n", desk.error().message);
    (*engine)->shutdown();
    return 1;
  }
  if (stop_requested(signals)) {
    spdlog::info("stopped while starting");
    desk->reset();
    (*engine)->shutdown();
    return 0;
  }
  // --role gateway: the desk's live events reach the sockets every gateway holds.
  std::unique_ptr<HubRelay> relay;
  if (config.cluster.role == Role::kGateway) {
    auto started = HubRelay::start(**nats, (*desk)->desk->hub());
    if (!started) {
      fmt::print(stderr, "error: {}\n", started.error().message);
      desk->reset();
      (*engine)->shutdown();
      return 1;
    }
    relay = std::move(started).value();
  }
  std::optional<obs::anomaly::AnomalyMonitor> monitor;
  std::optional<api::AnomalyWatch> watch;
  if (config.anomaly.on) {
    monitor.emplace(config.anomaly.monitor);
    watch.emplace(metrics, *monitor, config.anomaly.leak);
    // The caches that fill up after a start: growth until they are full is not a leak.
    desk::Desk* desk_part = engine_node ? nullptr : (*desk)->desk.get();
    watch->read_caches([desk_part, traces = tracer.get()] {
      std::vector<obs::CacheFill> caches;
      if (desk_part != nullptr) caches = desk_part->cache_fill();
      if (traces != nullptr) {
        // Kept traces are bounded by count and by bytes: whichever binds first.
        const auto& ring = traces->ring();
        const double by_count = static_cast<double>(ring.size()) / ring.capacity();
        const double by_bytes =
            static_cast<double>(ring.bytes()) / std::max<std::size_t>(1, ring.max_bytes());
        caches.push_back(by_count >= by_bytes
                             ? obs::CacheFill{"traces", static_cast<std::int64_t>(ring.size()),
                                              static_cast<std::int64_t>(ring.capacity())}
                             : obs::CacheFill{"traces", static_cast<std::int64_t>(ring.bytes()),
                                              static_cast<std::int64_t>(ring.max_bytes())});
      }
      return caches;
    });
  }
  auto* model_router = dynamic_cast<engine::router::RouterEngine*>(engine->get());
  if (model_router != nullptr && config.auto_rollback) {
    model_router->watch_canaries(config.canary, std::chrono::seconds(1),
                                 [monitor = monitor ? &*monitor : nullptr](
                                     const std::string& deployment, const std::string& verdict) {
                                   // The alert names the deployment; the verdict (the figure) is in
                                   // the log and history.
                                   if (monitor != nullptr)
                                     monitor->set_condition("model_rollback_" + deployment, true, 1,
                                                            obs::anomaly::WallClock::now());
                                   spdlog::error("automatic rollback of {}: {}", deployment,
                                                 verdict);
                                 });
  }
  // A model version kept out of traffic (its file is not the configured one) is an alert.
  if (monitor && model_router != nullptr) {
    for (const auto& version : model_router->versions()) {
      if (version.state != engine::router::VersionState::kFailed) continue;
      monitor->set_condition("model_version_failed_" + version.name, true, 1,
                             obs::anomaly::WallClock::now());
    }
  }
  api::Services services{engine->get(), &access, &metrics,
                         engine_node ? nullptr : (*desk)->desk.get(), tracer.get()};
  services.anomaly = monitor ? &*monitor : nullptr;
  if (!engine_node) services.warnings = (*desk)->warnings;
  services.cross_origin = config.cross_origin;
  services.admin_key = config.admin_key;
  services.faults = faults ? &*faults : nullptr;
  api::LoadShedding shedding;
  services.shedding = &shedding;
  services.router = model_router;
  std::unique_ptr<store::RouteHistory> route_history;  // with named versions
  if (model_router != nullptr) {
    engine::router::expose_router_metrics(registry, *model_router);
    // Shadow copies meet a drill's faults as requests of the class "low": POST /admin/faults
    // with "class": "low" slows or fails the shadows alone.
    model_router->configure_shadows(config.shadow, [&services](engine::GenerationRequest& copy) {
      return !api::inject_before_submit(services, copy).has_value();
    });
    services.load_model = [&config, model_router](const engine::router::VersionSpec& spec) {
      return load_at_run_time(config, *model_router, spec);
    };
    // The route history survives a restart in the data directory.
    std::error_code made;
    std::filesystem::create_directories(data_dir_of(config.desk), made);
    auto kept = keep_route_history(
        *model_router, std::filesystem::path(data_dir_of(config.desk)) / "routes.sqlite");
    if (kept) {
      route_history = std::move(kept).value();
    } else {
      spdlog::error("the route history is kept in memory only: {}", kept.error().message);
    }
  }
  http::Router router = engine_node ? api::make_probe_router(services) : api::make_router(services);
  http::Server server(api::serve_routes_with(services, config.http),
                      [&router](http::Request& request) { return router.dispatch(request); });
  if (Status status = server.start(); !status) {
    fmt::print(stderr, "error: {}\n", status.error().message);
    (*engine)->shutdown();
    return 1;
  }
  spdlog::info("supportd listening on {}://{}:{} (model {}; other sites' pages: {})",
               config.http.tls.enabled() ? "https" : "http", config.http.host, server.port(),
               (*engine)->model().id, config.cross_origin.describe());
  if (!config.port_file.empty()) {
    std::ofstream(config.port_file) << server.port() << "\n";
  }
  if (watch) watch->start(config.anomaly.interval);

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  spdlog::info("received {}; stopping (grace {} s)", strsignal(signal_number),
               config.shutdown_grace.count());
  server.stop_accepting();
  if (watch) watch->stop();
  if (!server.wait_idle(config.shutdown_grace)) {
    spdlog::warn("cancelling {} requests still in flight", server.requests_in_flight());
  }
  // An engine node lets its requests end, then hands the rest to other engines.
  if (worker) worker->stop(config.cluster.drain);
  (*engine)->shutdown();  // anything left ends as cancelled, and its client is told so
  server.wait_idle(std::chrono::seconds(2));
  server.stop();
  relay.reset();
  desk->reset();
  if (tracer) tracer->shutdown(std::chrono::seconds(5));  // what is kept reaches the collector
  spdlog::info("stopped");
  return 0;
}

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  CLI::App* command = app.add_subcommand("serve", "Serve the OpenAI-compatible API");
  static ServeConfig config;
  static ServeOptions options(*command, config);
  command->callback([&exit_code] { exit_code = run_serve(config, options); });
}

}  // namespace supportd::app
