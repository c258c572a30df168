// The server's anomaly watch: once a tick (a second by default) it reads the serving signals,
// feeds them to the anomaly monitor (obs/anomaly/signal_monitor.h), and reports what it says:
// supportd_anomaly_score{signal=...}, supportd_alert_active{alert=...} and
// supportd_alerts_raised_total{alert=...} in /metrics, and a log line when an alert is raised
// or cleared (GET /v1/alerts reads the monitor itself). The signals, per class (high, normal,
// low): ttft_p95, ttft_p99, e2e_p95, e2e_p99, itl_p95 (seconds, over ServingMetrics' window;
// skipped while the class has no request in the window), queue_depth; and tokens_per_second,
// refusals_per_second (queue full, deadline, rate limit), errors_per_second, rss_bytes.
// Each tick also feeds the leak watchdog (obs/leak_watchdog.h) the requests served so far:
// supportd_anonymous_memory_bytes, supportd_memory_growth_bytes_per_1000_requests, and the
// alert "memory_leak" (in /v1/alerts and supportd_alert_active) while memory keeps growing;
// and the engine's KV audit: supportd_kv_cells_leaked, and the alert "kv_cell_leak" while KV
// cells are held by no sequence. The bounded caches' fill (read_caches) goes to the watchdog,
// which alerts only on growth once every cache is at its cap, and to
// supportd_cache_fill_ratio{cache=...}.
// Thread-safety: tick() from one thread at a time (the watch's own thread once started);
// start() and stop() from the owner's thread.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "api/serving_metrics.h"
#include "obs/anomaly/signal_monitor.h"
#include "obs/leak_watchdog.h"

namespace supportd::api {

class AnomalyWatch {
 public:
  using Clock = std::chrono::steady_clock;

  // Registers the anomaly families in `metrics`' registry. Both must outlive the watch.
  AnomalyWatch(ServingMetrics& metrics, obs::anomaly::AnomalyMonitor& monitor,
               const obs::LeakOptions& leak = {});
  ~AnomalyWatch();  // stops the thread
  AnomalyWatch(const AnomalyWatch&) = delete;
  AnomalyWatch& operator=(const AnomalyWatch&) = delete;

  // The signals' values now. Rates are over the time since the previous call (absent on the
  // first call, or when no time has passed).
  std::vector<obs::anomaly::SignalValue> read_signals(Clock::time_point now = Clock::now());

  // One tick: reads the signals, feeds the monitor, updates the gauges, logs the changes.
  void tick(Clock::time_point now = Clock::now());

  // Where the bounded caches' fill is read each tick (from the tick's thread; it must stay
  // callable until stop()). REQUIRES: not started.
  void read_caches(std::function<std::vector<obs::CacheFill>()> reader) {
    cache_reader_ = std::move(reader);
  }

  // Ticks every `interval` on a thread of its own until stop(). REQUIRES: not started.
  void start(std::chrono::milliseconds interval);
  void stop();

 private:
  ServingMetrics& metrics_;
  obs::anomaly::AnomalyMonitor& monitor_;
  obs::Family<obs::Gauge>& score_;
  obs::Family<obs::Gauge>& active_;
  obs::Family<obs::Counter>& raised_;
  obs::Gauge& anonymous_;
  obs::Gauge& growth_;
  obs::Gauge& kv_leaked_;
  obs::Family<obs::Gauge>& cache_fill_;
  std::function<std::vector<obs::CacheFill>()> cache_reader_;  // may be empty
  obs::LeakWatchdog leak_;
  std::int64_t requests_ = 0;         // requests that ended, as the last read_signals saw them
  std::int64_t kv_cells_leaked_ = 0;  // the engine's KV audit, as the last read_signals saw it

  // The running totals the rates are taken from, as the previous call saw them.
  bool have_totals_ = false;
  Clock::time_point totals_at_;
  std::int64_t tokens_ = 0, refusals_ = 0, errors_ = 0;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace supportd::api
