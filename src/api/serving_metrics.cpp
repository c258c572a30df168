// Request-level serving metrics (see serving_metrics.h): the Prometheus families, the sliding
// windows per priority class, and the engine and process gauges refreshed on collection.
#include "api/serving_metrics.h"

#include <boost/json.hpp>

#include "obs/process.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

constexpr int kOutcomes = 6;

int priority_index(const std::string& name) {
  const auto p = sched::parse_priority(name);
  return static_cast<int>(p.value_or(sched::Priority::kNormal));
}

// Moves a counter mirrored from a running total up to that total (counters only move forward).
void advance(obs::Counter& counter, double total) {
  counter.increment(total - counter.value());
}

// Measured numbers: negative means "not known" (and NaN never leaves as invalid JSON).
json::value non_negative_or_null(double value) {
  return value >= 0 ? json::value(value) : json::value(nullptr);
}

// What an engine iteration costs and a request asks, as the fit stands (null before any).
json::value iteration_cost_json(const engine::IterationCost& cost) {
  if (cost.iterations == 0) return nullptr;
  json::value excess = nullptr, shares = nullptr;
  if (cost.recent) {
    engine::IterationCost::Excess summary = cost.excess();
    excess = json::value_from(summary.milliseconds);
    shares = json::value_from(summary.shares);
  }
  return json::object{{"iterations", cost.iterations},
                      {"fixed_ms", cost.fixed_ms},
                      {"per_decode_token_ms", cost.per_decode_token_ms},
                      {"per_prompt_token_ms", cost.per_prompt_token_ms},
                      {"per_split_ms", cost.per_split_ms},
                      {"per_decode_pair_ms", cost.per_decode_pair_ms},
                      {"split_tokens", cost.split_tokens},
                      {"requests", cost.requests},
                      {"prompt_tokens", cost.prompt_tokens},
                      {"output_tokens", cost.output_tokens},
                      {"step_tokens", cost.step_tokens},
                      {"totals", json::object{{"iterations", cost.iterations},
                                              {"milliseconds", cost.totals.milliseconds},
                                              {"decode_tokens", cost.totals.decode_tokens},
                                              {"prompt_tokens", cost.totals.prompt_tokens},
                                              {"splits", cost.totals.splits},
                                              {"decode_pairs", cost.totals.decode_pairs}}},
                      {"excess_ms", std::move(excess)},
                      {"excess_shares", std::move(shares)}};
}

// The load over the window, as `supportd capacity --url` reads it.
json::object capacity_json(const obs::LoadSummary& load, int slots,
                           const engine::IterationCost& cost) {
  json::object classes;
  for (int p = 0; p < engine::kPriorityCount; ++p) {
    const auto& g = load.groups[static_cast<std::size_t>(p)];
    classes[sched::priority_name(static_cast<sched::Priority>(p))] =
        json::object{{"arrivals", g.arrivals},
                     {"arrival_rate", non_negative_or_null(g.arrival_rate)},
                     {"service_time_s", non_negative_or_null(g.service_mean_s)}};
  }
  // How fast requests leave service with k in it: the load-dependent curve of a plan.
  json::array busy;
  for (std::size_t k = 0; k < load.busy.size(); ++k) {
    busy.push_back(json::object{{"in_service", k + 1},
                                {"seconds", load.busy[k].seconds},
                                {"departures", load.busy[k].departures}});
  }
  return {{"window_s", load.window_s},
          {"arrivals", load.arrivals},
          {"arrival_rate", non_negative_or_null(load.arrival_rate)},
          {"arrival_cv", non_negative_or_null(load.arrival_cv)},
          {"served", load.served},
          {"service_time_s", non_negative_or_null(load.service_mean_s)},
          {"service_cv", non_negative_or_null(load.service_cv)},
          {"slots", slots > 0 ? json::value(slots) : json::value(nullptr)},
          {"busy_span_s", load.busy_span_s},
          {"busy", std::move(busy)},
          {"iteration_cost", iteration_cost_json(cost)},
          {"classes", std::move(classes)}};
}

json::object percentiles_json(const obs::Percentiles& p) {
  return {{"count", p.count},       {"p50_ms", p.p50 * 1e3}, {"p90_ms", p.p90 * 1e3},
          {"p95_ms", p.p95 * 1e3},  {"p99_ms", p.p99 * 1e3}, {"max_ms", p.max * 1e3},
          {"mean_ms", p.mean * 1e3}};
}

}  // namespace

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk: return "ok";
    case Outcome::kCancelled: return "cancelled";
    case Outcome::kRejectedQueueFull: return "rejected_queue_full";
    case Outcome::kRejectedDeadline: return "rejected_deadline";
    case Outcome::kRateLimited: return "rate_limited";
    case Outcome::kError: return "error";
  }
  return "error";
}

std::optional<Outcome> refusal_outcome(ErrorCode code) {
  if (code == ErrorCode::kOverloaded) return Outcome::kRejectedQueueFull;
  if (code == ErrorCode::kDeadline) return Outcome::kRejectedDeadline;
  return std::nullopt;
}

ServingMetrics::ServingMetrics(obs::Registry& registry, engine::Engine& engine,
                               std::chrono::seconds window)
    : registry_(registry),
      engine_(engine),
      requests_(registry.counter("supportd_requests_total", "Requests by outcome.",
                                 {"outcome", "priority", "tenant"})),
      ttft_(registry.histogram("supportd_time_to_first_token_seconds",
                               "Time from arrival to the first generated token.",
                               {"priority", "tenant"}, obs::exponential_buckets(0.005, 2, 14))),
      itl_(registry.histogram("supportd_inter_token_latency_seconds",
                              "Time between consecutive streamed pieces of text.",
                              {"priority", "tenant"}, obs::exponential_buckets(0.001, 2, 14))),
      e2e_(registry.histogram("supportd_request_duration_seconds",
                              "Time from arrival to the last token.", {"priority", "tenant"},
                              obs::exponential_buckets(0.01, 2, 14))),
      queue_(registry.histogram("supportd_queue_wait_seconds",
                                "Time from arrival to the start of prefill.",
                                {"priority", "tenant"}, obs::exponential_buckets(0.001, 2, 16))),
      prompt_tokens_(registry.histogram("supportd_prompt_tokens", "Prompt length in tokens.",
                                        {"priority", "tenant"},
                                        obs::exponential_buckets(8, 2, 12))),
      completion_tokens_(registry.histogram("supportd_generated_tokens",
                                            "Generated tokens per request.", {"priority", "tenant"},
                                            obs::exponential_buckets(4, 2, 12))),
      window_(window),
      windows_{Windows(window), Windows(window), Windows(window)} {
  static_assert(engine::kPriorityCount == 3, "one window set per class");
  // The unlabelled counters and gauges below, registered in `registry`.
  auto counter = [&registry](const char* name, const char* help) -> obs::Counter& {
    return registry.counter(name, help).get();
  };
  auto gauge = [&registry](const char* name, const char* help) -> obs::Gauge& {
    return registry.gauge(name, help).get();
  };
  auto& waiting =
      registry.gauge("supportd_queue_depth", "Requests waiting to start, by class.", {"priority"});
  auto& running = gauge("supportd_running_sequences", "Sequences prefilling or decoding.");
  auto& cells_used =
      gauge("supportd_kv_cells_used", "KV cells in use (including the prefix cache).");
  auto& cells_total = gauge("supportd_kv_cells_capacity", "KV cells in the cache.");
  auto& hit_ratio = gauge("supportd_prefix_cache_hit_ratio",
                          "Share of admitted requests that reused a cached prefix.");
  auto& lookups = counter("supportd_prefix_cache_lookups_total",
                          "Admitted requests whose prompt was looked up in the prefix cache.");
  auto& hits = counter("supportd_prefix_cache_hits_total",
                       "Prefix-cache lookups that found a cached prefix to reuse.");
  auto& reused = counter("supportd_prompt_tokens_reused_total",
                         "Prompt tokens taken from the prefix cache instead of computed.");
  auto& per_step = gauge("supportd_tokens_per_step",
                         "Average tokens carried by one engine step (llama_decode call).");
  auto& steps = counter("supportd_engine_steps_total", "Engine steps (llama_decode calls).");
  auto& step_tokens = counter("supportd_engine_step_tokens_total",
                              "Tokens carried by all engine steps; its rate over the rate of "
                              "supportd_engine_steps_total is the batch size in tokens.");
  auto& busy = counter("supportd_engine_busy_seconds_total",
                       "Seconds the engine spent computing steps; its rate is the engine's "
                       "utilization (1: never idle).");
  auto& generated = counter("supportd_tokens_generated_total", "Tokens generated.");
  auto& preemptions =
      counter("supportd_preemptions_total", "Running sequences paused for a higher class.");
  auto& saved = counter("supportd_preemption_saved_bytes_total",
                        "Bytes of KV cache copied to memory to pause sequences "
                        "(--preemption save).");
  auto& threads = gauge("supportd_engine_threads", "Compute threads used by the last step.");
  auto& ready = gauge("supportd_ready",
                      "1 while the model is loaded and warmed up and /ready answers 200; 0 "
                      "while warming up or shutting down.");
  auto& rss = gauge("process_resident_memory_bytes", "Resident memory size in bytes.");
  auto& cpu = counter("process_cpu_seconds_total", "User and system CPU time in seconds.");
  auto& fds = gauge("process_open_fds", "Open file descriptors.");
  registry.on_collect([this, &waiting, &running, &cells_used, &cells_total, &hit_ratio, &lookups,
                       &hits, &reused, &per_step, &steps, &step_tokens, &busy, &generated,
                       &preemptions, &saved, &threads, &ready, &rss, &cpu, &fds] {
    const engine::EngineStats s = engine_.stats();
    for (int p = 0; p < engine::kPriorityCount; ++p) {
      waiting.with({sched::priority_name(static_cast<sched::Priority>(p))})
          .set(s.waiting_by_priority[p]);
    }
    running.set(s.running);
    cells_used.set(static_cast<double>(s.kv_cells_used));
    cells_total.set(static_cast<double>(s.kv_cells_total));
    hit_ratio.set(s.prefix_lookups > 0
                      ? static_cast<double>(s.prefix_hits) / static_cast<double>(s.prefix_lookups)
                      : 0);
    advance(lookups, static_cast<double>(s.prefix_lookups));
    advance(hits, static_cast<double>(s.prefix_hits));
    advance(reused, static_cast<double>(s.prompt_tokens_reused));
    advance(steps, static_cast<double>(s.steps));
    advance(step_tokens, static_cast<double>(s.step_tokens));
    advance(busy, s.busy_seconds);
    advance(generated, static_cast<double>(s.tokens_generated));
    advance(preemptions, static_cast<double>(s.preemptions));
    advance(saved, static_cast<double>(s.preemption_saved_bytes));
    per_step.set(s.steps > 0 ? static_cast<double>(s.step_tokens) / static_cast<double>(s.steps)
                             : 0);
    threads.set(s.threads);
    ready.set(engine_.ready() ? 1 : 0);
    const obs::ProcessUsage usage = obs::process_usage();
    rss.set(static_cast<double>(usage.resident_bytes));
    advance(cpu, usage.cpu_seconds);
    fds.set(usage.open_fds);
  });
}

void ServingMetrics::record(const RequestRecord& r) {
  const obs::Labels labels{r.priority, r.tenant};
  requests_.with({outcome_name(r.outcome), r.priority, r.tenant}).increment();
  const int p = priority_index(r.priority);
  outcomes_[p][static_cast<int>(r.outcome)].fetch_add(1);
  // Capacity planning: when it arrived, and how long it held a slot (prefill to last token).
  const auto now = obs::LoadWindow::Clock::now();
  const auto arrived = r.total_seconds >= 0
                           ? now - std::chrono::duration_cast<obs::LoadWindow::Clock::duration>(
                                       std::chrono::duration<double>(r.total_seconds))
                           : now;
  const bool served = r.outcome == Outcome::kOk && r.total_seconds >= 0 && r.queue_seconds >= 0;
  load_.add(p, arrived, served ? r.total_seconds - r.queue_seconds : -1, now);
  Windows& w = windows_[p];
  if (r.queue_seconds >= 0) {
    queue_.with(labels).observe(r.queue_seconds);
    w.queue.add(r.queue_seconds);
  }
  if (r.outcome != Outcome::kOk) return;
  if (r.first_token_seconds >= 0) {
    ttft_.with(labels).observe(r.first_token_seconds);
    w.ttft.add(r.first_token_seconds);
  }
  if (r.total_seconds >= 0) {
    e2e_.with(labels).observe(r.total_seconds);
    w.e2e.add(r.total_seconds);
  }
  prompt_tokens_.with(labels).observe(r.prompt_tokens);
  completion_tokens_.with(labels).observe(r.completion_tokens);
}

void ServingMetrics::record_inter_token(const std::string& priority, const std::string& tenant,
                                        double seconds) {
  itl_.with({priority, tenant}).observe(seconds);
  windows_[priority_index(priority)].itl.add(seconds);
}

ServingMetrics::ClassSample ServingMetrics::class_sample(int priority) const {
  const Windows& w = windows_[priority];
  ClassSample sample{w.ttft.percentiles(), w.itl.percentiles(), w.e2e.percentiles(), {}};
  for (int o = 0; o < kOutcomes; ++o)
    sample.outcomes[o] = outcomes_[priority][o].load();
  return sample;
}

json::object ServingMetrics::stats_object() const {
  const engine::EngineStats s = engine_.stats();
  json::object classes;
  for (int p = 0; p < engine::kPriorityCount; ++p) {
    const Windows& w = windows_[p];
    json::object outcomes;
    for (int o = 0; o < kOutcomes; ++o)
      outcomes[outcome_name(static_cast<Outcome>(o))] = outcomes_[p][o].load();
    classes[sched::priority_name(static_cast<sched::Priority>(p))] =
        json::object{{"waiting", s.waiting_by_priority[p]},
                     {"outcomes", std::move(outcomes)},
                     {"time_to_first_token", percentiles_json(w.ttft.percentiles())},
                     {"inter_token_latency", percentiles_json(w.itl.percentiles())},
                     {"request_duration", percentiles_json(w.e2e.percentiles())},
                     {"queue_wait", percentiles_json(w.queue.percentiles())}};
  }
  const obs::ProcessUsage usage = obs::process_usage();
  json::object engine{{"running", s.running},
                      {"waiting", s.waiting},
                      {"kv_cells_used", s.kv_cells_used},
                      {"kv_cells_total", s.kv_cells_total},
                      {"prefix_cache_cells", s.prefix_cache_tokens},
                      {"prefix_lookups", s.prefix_lookups},
                      {"prefix_hits", s.prefix_hits},
                      {"prompt_tokens_reused", s.prompt_tokens_reused},
                      {"prefix_copies_merged", s.prefix_copies_merged},
                      {"prefill_joins", s.prefill_joins},
                      {"steps", s.steps},
                      {"step_tokens", s.step_tokens},
                      {"mixed_steps", s.mixed_steps},
                      {"split_steps", s.split_steps},
                      {"shared_prefix_steps", s.shared_prefix_steps},
                      {"shared_prefix_tokens", s.shared_prefix_tokens},
                      {"tokens_generated", s.tokens_generated},
                      {"preemptions", s.preemptions},
                      {"preemption_saved_bytes", s.preemption_saved_bytes},
                      {"preemption_saved_tokens", s.preemption_saved_tokens},
                      {"last_step_ms", s.last_step_ms},
                      {"busy_seconds", s.busy_seconds},
                      {"threads", s.threads},
                      {"slots", s.slots}};
  json::object process{{"resident_bytes", usage.resident_bytes},
                       {"cpu_seconds", usage.cpu_seconds},
                       {"open_fds", usage.open_fds},
                       {"threads", usage.threads}};
  return json::object{{"model", engine_.model().id},
                      {"window_s", window_.count()},
                      {"engine", std::move(engine)},
                      {"classes", std::move(classes)},
                      {"capacity", capacity_json(load_.summary(), s.slots, s.cost)},
                      {"process", std::move(process)}};
}

}  // namespace supportd::api
