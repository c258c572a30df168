// The circuit breaker (circuit_breaker.h): closed, open for a doubling backoff after each failure,
// then one probe at a time.
#include "store/circuit_breaker.h"

#include <algorithm>

namespace supportd::store {

CircuitBreaker::CircuitBreaker(std::chrono::milliseconds min_backoff,
                               std::chrono::milliseconds max_backoff,
                               std::function<Clock::time_point()> now)
    : min_backoff_(min_backoff),
      max_backoff_(std::max(min_backoff, max_backoff)),
      now_(std::move(now)),
      backoff_(min_backoff) {}

bool CircuitBreaker::allow() {
  std::lock_guard lock(mutex_);
  if (!open_) return true;
  const Clock::time_point now = now_();
  if (now < retry_at_) return false;
  // This caller probes; everyone else waits for its outcome (or for one more backoff).
  retry_at_ = now + backoff_;
  return true;
}

void CircuitBreaker::success() {
  std::lock_guard lock(mutex_);
  open_ = false;
  backoff_ = min_backoff_;
}

void CircuitBreaker::failure() {
  std::lock_guard lock(mutex_);
  ++failures_;
  if (open_) backoff_ = std::min(backoff_ * 2, max_backoff_);
  open_ = true;
  retry_at_ = now_() + backoff_;
}

bool CircuitBreaker::is_open() const {
  std::lock_guard lock(mutex_);
  return open_;
}

std::int64_t CircuitBreaker::failures() const {
  std::lock_guard lock(mutex_);
  return failures_;
}

}  // namespace supportd::store
