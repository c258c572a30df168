// Token buckets per key, refilled on use (see rate_limiter.h).
#include "sched/rate_limiter.h"

#include <algorithm>

namespace supportd::sched {

void RateLimiter::set_limit(const std::string& key, RateLimit limit) {
  std::lock_guard lock(mutex_);
  Bucket& b = buckets_[key];
  if (limit.burst_requests <= 0) limit.burst_requests = std::max(1.0, limit.requests_per_second);
  b.limit = limit;
  b.requests = limit.burst_requests;
  b.tokens = limit.tokens_per_minute;
  b.started = false;
}

void RateLimiter::refill(Bucket& b, Clock::time_point now) {
  if (!b.started) {
    b.started = true;
    b.updated = now;
    return;
  }
  const double seconds = std::chrono::duration<double>(now - b.updated).count();
  if (seconds <= 0) return;
  b.updated = now;
  b.requests = std::min(b.limit.burst_requests, b.requests + seconds * b.limit.requests_per_second);
  b.tokens =
      std::min(b.limit.tokens_per_minute, b.tokens + seconds * b.limit.tokens_per_minute / 60.0);
}

std::optional<std::chrono::duration<double>> RateLimiter::acquire(const std::string& key,
                                                                  Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) return std::nullopt;
  Bucket& b = it->second;
  refill(b, now);
  double wait = 0;
  if (b.limit.requests_per_second > 0 && b.requests < 1.0) {
    wait = std::max(wait, (1.0 - b.requests) / b.limit.requests_per_second);
  }
  if (b.limit.tokens_per_minute > 0 && b.tokens < 0) {
    wait = std::max(wait, -b.tokens / (b.limit.tokens_per_minute / 60.0));
  }
  if (wait > 0) return std::chrono::duration<double>(wait);
  if (b.limit.requests_per_second > 0) b.requests -= 1.0;
  return std::nullopt;
}

void RateLimiter::charge_tokens(const std::string& key, double tokens, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = buckets_.find(key);
  if (it == buckets_.end() || it->second.limit.tokens_per_minute <= 0) return;
  refill(it->second, now);
  it->second.tokens -= tokens;
}

}  // namespace supportd::sched
