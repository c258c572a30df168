// Decides whether to call a backend (Redis, PostgreSQL) that has been failing, so that a dead
// server costs callers nothing: after a failure, calls are refused at once for a backoff that
// doubles with each consecutive failure (min_backoff .. max_backoff); when it has passed, one
// caller probes the backend; a success closes the breaker again.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>

namespace supportd::store {

class CircuitBreaker {
 public:
  using Clock = std::chrono::steady_clock;

  CircuitBreaker(std::chrono::milliseconds min_backoff, std::chrono::milliseconds max_backoff,
                 std::function<Clock::time_point()> now = Clock::now);

  // True when the caller should try the backend now: the breaker is closed, or the backoff
  // has passed and this caller is the probe (others are refused until it reports).
  bool allow();
  // The attempt succeeded: the breaker closes.
  void success();
  // The attempt failed: the breaker opens for the next backoff.
  void failure();

  // True while the last attempt failed.
  bool is_open() const;
  // Failures since construction.
  std::int64_t failures() const;

 private:
  const std::chrono::milliseconds min_backoff_;
  const std::chrono::milliseconds max_backoff_;
  const std::function<Clock::time_point()> now_;

  mutable std::mutex mutex_;
  bool open_ = false;                  // guarded by mutex_
  std::chrono::milliseconds backoff_;  // guarded by mutex_
  Clock::time_point retry_at_;         // guarded by mutex_
  std::int64_t failures_ = 0;          // guarded by mutex_
};

}  // namespace supportd::store
