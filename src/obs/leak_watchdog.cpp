// The memory leak watchdog (see leak_watchdog.h): checkpoints per 1,000 requests and the
// least-squares slope of anonymous memory over them, alerting only over caches at their caps.
#include "obs/leak_watchdog.h"

#include <algorithm>
#include <fstream>
#include <string>

namespace supportd::obs {
namespace {

// Least-squares slope of memory over requests, per 1,000 requests.
double slope_per_1000(const std::deque<LeakCheckpoint>& points) {
  double mean_x = 0, mean_y = 0;
  for (const auto& p : points) {
    mean_x += static_cast<double>(p.requests);
    mean_y += static_cast<double>(p.anonymous_bytes);
  }
  const auto n = static_cast<double>(points.size());
  mean_x /= n;
  mean_y /= n;
  double covariance = 0, variance = 0;
  for (const auto& p : points) {
    const double dx = static_cast<double>(p.requests) - mean_x;
    covariance += dx * (static_cast<double>(p.anonymous_bytes) - mean_y);
    variance += dx * dx;
  }
  return variance > 0 ? 1000.0 * covariance / variance : 0.0;
}

}  // namespace

std::optional<LeakCheckpoint> LeakWatchdog::observe(std::int64_t requests,
                                                    std::int64_t anonymous_bytes,
                                                    const std::vector<CacheFill>& caches) {
  if (next_ < 0) next_ = static_cast<std::int64_t>(options_.warm_up_requests);
  if (requests < next_) return std::nullopt;
  next_ = requests + static_cast<std::int64_t>(options_.every_requests);
  LeakCheckpoint checkpoint{requests, anonymous_bytes, std::nullopt};
  checkpoint.caches_full =
      std::all_of(caches.begin(), caches.end(), [](const CacheFill& c) { return c.full(); });
  full_in_a_row_ = checkpoint.caches_full ? full_in_a_row_ + 1 : 0;
  kept_.push_back(checkpoint);
  if (kept_.size() > options_.fit_checkpoints) kept_.pop_front();
  if (kept_.size() >= 2) {
    checkpoint.bytes_per_1000 = slope_per_1000(kept_);
    // Growth that keeps going: the whole fit, not one step between two checkpoints; and
    // growth no cache explains: every checkpoint of the fit taken with the caches full.
    checkpoint.alert = kept_.size() == options_.fit_checkpoints &&
                       full_in_a_row_ >= options_.fit_checkpoints &&
                       *checkpoint.bytes_per_1000 > options_.alert_mb_per_1000 * 1e6;
  }
  last_ = checkpoint;
  return checkpoint;
}

bool LeakWatchdog::observe_kv(std::int64_t leaked_cells) {
  kv_leaking_readings_ = leaked_cells > options_.kv_alert_cells ? kv_leaking_readings_ + 1 : 0;
  return kv_leaking_readings_ >= std::max<std::size_t>(1, options_.kv_confirm_readings);
}

std::int64_t anonymous_memory_bytes() {
  std::ifstream status("/proc/self/status");
  std::int64_t kib = 0;
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with("RssAnon:") || line.starts_with("VmSwap:"))
      kib += std::stoll(line.substr(line.find(':') + 1));
  }
  return kib * 1024;
}

}  // namespace supportd::obs
