// The server's anomaly watch (see anomaly_watch.h): signals read from the serving metrics and
// the engine, fed to the monitor once a tick, reported as metrics and log lines.
#include "api/anomaly_watch.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "obs/process.h"

namespace supportd::api {
namespace {

using obs::anomaly::SignalValue;
constexpr auto kUp = obs::anomaly::Direction::kUp;      // higher is worse
constexpr auto kDown = obs::anomaly::Direction::kDown;  // lower is worse

// A percentile in seconds, or NaN (skipped) when the window holds no request.
double seconds_or_skip(const obs::Percentiles& p, double value) {
  return p.count > 0 ? value : std::numeric_limits<double>::quiet_NaN();
}

std::string latest_values(const std::vector<double>& values) {
  std::string text;
  for (double value : values)
    text += fmt::format("{}{:.4g}", text.empty() ? "" : " ", value);
  return text;
}

}  // namespace

AnomalyWatch::AnomalyWatch(ServingMetrics& metrics, obs::anomaly::AnomalyMonitor& monitor,
                           const obs::LeakOptions& leak)
    : metrics_(metrics),
      monitor_(monitor),
      score_(metrics.registry().gauge(
          "supportd_anomaly_score",
          "Anomaly score of a watched signal in [0, 1] (0 while its detector is learning).",
          {"signal"})),
      active_(metrics.registry().gauge(
          "supportd_alert_active", "1 while the anomaly alert on a signal is active.", {"alert"})),
      raised_(metrics.registry().counter("supportd_alerts_raised_total",
                                         "Anomaly alerts raised, by alert.", {"alert"})),
      anonymous_(metrics.registry()
                     .gauge("supportd_anonymous_memory_bytes",
                            "Anonymous memory of the process (RssAnon + VmSwap), at the anomaly "
                            "watch's last tick.")
                     .get()),
      growth_(metrics.registry()
                  .gauge("supportd_memory_growth_bytes_per_1000_requests",
                         "Growth of anonymous memory per 1,000 requests, fitted over the leak "
                         "watchdog's last checkpoints (after its warm-up).")
                  .get()),
      kv_leaked_(metrics.registry()
                     .gauge("supportd_kv_cells_leaked",
                            "KV cells held by no running request and no prefix-cache entry, at "
                            "the anomaly watch's last tick (any is a leak).")
                     .get()),
      cache_fill_(metrics.registry().gauge(
          "supportd_cache_fill_ratio",
          "A bounded in-process cache's fill against its cap (1: full), at the anomaly watch's "
          "last tick; the leak watchdog alerts only on growth once every cache is full.",
          {"cache"})),
      leak_(leak) {
  // The alerts decided here exist from the start, at 0: a rule reading them finds the series
  // before the first tick (and before the first checkpoint, a thousand requests in).
  active_.with({"memory_leak"}).set(0);
  active_.with({"kv_cell_leak"}).set(0);
}

AnomalyWatch::~AnomalyWatch() {
  stop();
}

std::vector<SignalValue> AnomalyWatch::read_signals(Clock::time_point now) {
  std::vector<SignalValue> values;
  const engine::EngineStats engine = metrics_.engine().stats();
  std::int64_t refusals = 0, errors = 0, requests = 0;
  for (int p = 0; p < engine::kPriorityCount; ++p) {
    const std::string name = sched::priority_name(static_cast<sched::Priority>(p));
    const ServingMetrics::ClassSample s = metrics_.class_sample(p);
    values.push_back({"ttft_p95." + name, seconds_or_skip(s.ttft, s.ttft.p95), kUp});
    values.push_back({"ttft_p99." + name, seconds_or_skip(s.ttft, s.ttft.p99), kUp});
    values.push_back({"e2e_p95." + name, seconds_or_skip(s.e2e, s.e2e.p95), kUp});
    values.push_back({"e2e_p99." + name, seconds_or_skip(s.e2e, s.e2e.p99), kUp});
    values.push_back({"itl_p95." + name, seconds_or_skip(s.itl, s.itl.p95), kUp});
    values.push_back(
        {"queue_depth." + name, static_cast<double>(engine.waiting_by_priority[p]), kUp});
    refusals += s.outcomes[static_cast<int>(Outcome::kRejectedQueueFull)] +
                s.outcomes[static_cast<int>(Outcome::kRejectedDeadline)] +
                s.outcomes[static_cast<int>(Outcome::kRateLimited)];
    errors += s.outcomes[static_cast<int>(Outcome::kError)];
    for (std::int64_t count : s.outcomes)
      requests += count;
  }
  requests_ = requests;
  kv_cells_leaked_ = engine.kv_cells_leaked;
  const double elapsed = std::chrono::duration<double>(now - totals_at_).count();
  if (have_totals_ && elapsed > 0) {
    values.push_back({"tokens_per_second",
                      static_cast<double>(engine.tokens_generated - tokens_) / elapsed, kDown});
    values.push_back(
        {"refusals_per_second", static_cast<double>(refusals - refusals_) / elapsed, kUp});
    values.push_back({"errors_per_second", static_cast<double>(errors - errors_) / elapsed, kUp});
  }
  if (!have_totals_ || elapsed > 0) {
    have_totals_ = true;
    totals_at_ = now;
    tokens_ = engine.tokens_generated;
    refusals_ = refusals;
    errors_ = errors;
  }
  values.push_back({"rss_bytes", static_cast<double>(obs::process_usage().resident_bytes), kUp});
  return values;
}

void AnomalyWatch::tick(Clock::time_point now) {
  const auto values = read_signals(now);
  const auto wall = obs::anomaly::WallClock::now();
  std::vector<obs::anomaly::AlertRecord> changes = monitor_.observe(values, wall);
  const std::int64_t anonymous = obs::anonymous_memory_bytes();
  anonymous_.set(static_cast<double>(anonymous));
  std::vector<obs::CacheFill> caches;
  if (cache_reader_) caches = cache_reader_();
  for (const auto& cache : caches) {
    cache_fill_.with({cache.name})
        .set(static_cast<double>(cache.used) /
             static_cast<double>(std::max<std::int64_t>(1, cache.cap)));
  }
  if (const auto checkpoint = leak_.observe(requests_, anonymous, caches)) {
    const double slope = checkpoint->bytes_per_1000.value_or(0);
    growth_.set(slope);
    if (auto change = monitor_.set_condition("memory_leak", checkpoint->alert, slope, wall))
      changes.push_back(std::move(*change));
    active_.with({"memory_leak"}).set(checkpoint->alert ? 1 : 0);
  }
  kv_leaked_.set(static_cast<double>(kv_cells_leaked_));
  const bool kv_leak = leak_.observe_kv(kv_cells_leaked_);
  if (auto change = monitor_.set_condition("kv_cell_leak", kv_leak,
                                           static_cast<double>(kv_cells_leaked_), wall))
    changes.push_back(std::move(*change));
  active_.with({"kv_cell_leak"}).set(kv_leak ? 1 : 0);
  for (const auto& change : changes) {
    if (change.active) {
      raised_.with({change.signal}).increment();
      spdlog::warn("anomaly alert {} raised: value {:.4g} (score {:.2f}); latest values: {}",
                   change.signal, change.raising_value, change.raising_score,
                   latest_values(change.values));
    } else {
      spdlog::info(
          "anomaly alert {} cleared after {} readings (peak score {:.2f}); latest "
          "values: {}",
          change.signal, change.readings, change.peak_score, latest_values(change.values));
    }
  }
  for (const auto& state : monitor_.signals()) {
    score_.with({state.signal}).set(state.reading.score);
    active_.with({state.signal}).set(state.alert_active ? 1 : 0);
  }
}

void AnomalyWatch::start(std::chrono::milliseconds interval) {
  thread_ = std::thread([this, interval] {
    std::unique_lock lock(mutex_);
    auto next = Clock::now() + interval;
    while (!wake_.wait_until(lock, next, [this] { return stopping_; })) {
      lock.unlock();
      tick();
      lock.lock();
      next += interval;
      if (next < Clock::now()) next = Clock::now() + interval;  // fell behind: do not burst
    }
  });
}

void AnomalyWatch::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace supportd::api
