// The memory leak watchdog: it takes a checkpoint of the process's anonymous memory (RssAnon +
// VmSwap: what a leak grows, unlike file-backed pages such as the mapped model) every
// `every_requests` requests served, with every bounded cache's fill against its cap, fits the
// growth per 1,000 requests over the last `fit_checkpoints` checkpoints taken after a warm-up,
// and raises its alert while that slope stays above `alert_mb_per_1000` (the reference: 200 MB
// per 1,000 requests) over a whole fit taken with every cache at its cap (a cache filling up
// is growth, not a leak; memory that grows once they are all full is). Fed by the
// server's anomaly watch each tick with the requests served so far. Thread-safety: not thread-safe;
// one owner feeds it. It also watches the KV cells the engine's audit finds held by no sequence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

namespace supportd::obs {

struct LeakOptions {
  std::size_t every_requests = 1000;    // requests between two checkpoints (at least 1)
  std::size_t warm_up_requests = 5000;  // requests before the first checkpoint is kept
  std::size_t fit_checkpoints = 5;      // checkpoints the slope is fitted over (at least 2)
  double alert_mb_per_1000 = 200;       // slope that raises the alert, in MB (10^6 bytes)
  // KV cells: any cell held by no sequence is a leak. The alert is raised once the engine's
  // audit has found more than kv_alert_cells leaked on kv_confirm_readings readings in a row
  // (the audit sees the engine between two steps, so one reading would do; the margin is for
  // an engine whose stats are read while they change).
  std::int64_t kv_alert_cells = 0;
  std::size_t kv_confirm_readings = 3;
};

// One bounded cache as the watchdog sees it: what it holds against its cap, in the cache's own
// unit (entries, or bytes where bytes bind).
struct CacheFill {
  std::string name;  // e.g. "answers_l1", "semantic", "traces"
  std::int64_t used = 0;
  std::int64_t cap = 1;  // > 0
  // At its cap, give or take the few percent an expiry or an eviction frees now and then.
  bool full() const { return used * 100 >= cap * 95; }
};

struct LeakCheckpoint {
  std::int64_t requests = 0;
  std::int64_t anonymous_bytes = 0;
  // Least-squares growth per 1,000 requests over the kept checkpoints; empty until there
  // are two.
  std::optional<double> bytes_per_1000;
  bool caches_full = true;  // every cache was at its cap when it was taken (true: none given)
  // A whole fit (fit_checkpoints kept, every one with the caches full) has a slope above the
  // threshold.
  bool alert = false;
};

class LeakWatchdog {
 public:
  explicit LeakWatchdog(const LeakOptions& options = {}) : options_(options) {}

  // Reports the requests served so far, the anonymous memory now and the caches' fill; returns
  // the checkpoint taken when one was due (past the warm-up, `every_requests` after the
  // previous one).
  std::optional<LeakCheckpoint> observe(std::int64_t requests, std::int64_t anonymous_bytes,
                                        const std::vector<CacheFill>& caches = {});

  // The latest checkpoint (requests 0 before the first).
  const LeakCheckpoint& last() const { return last_; }

  // Reports the KV cells the engine's audit found held by no sequence (engine::EngineStats::
  // kv_cells_leaked); returns whether the KV leak alert holds now.
  bool observe_kv(std::int64_t leaked_cells);

 private:
  LeakOptions options_;
  std::int64_t next_ = -1;  // requests at which the next checkpoint is due (-1: not set yet)
  std::deque<LeakCheckpoint> kept_;
  std::size_t full_in_a_row_ = 0;  // checkpoints taken with every cache full, the last ones
  LeakCheckpoint last_;
  std::size_t kv_leaking_readings_ = 0;  // in a row, over kv_alert_cells
};

// This process's anonymous memory (RssAnon + VmSwap from /proc/self/status), in bytes; 0 when
// it cannot be read.
std::int64_t anonymous_memory_bytes();

}  // namespace supportd::obs
