// Per-key rate limits: token buckets on requests per second and on tokens per minute.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace supportd::sched {

struct RateLimit {
  double requests_per_second = 0;  // 0: unlimited
  double burst_requests = 0;       // bucket size; 0: max(1, requests_per_second)
  double tokens_per_minute = 0;    // 0: unlimited; prompt + completion tokens
};

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  void set_limit(const std::string& key, RateLimit limit);

  // Takes one request from `key`'s bucket, also requiring the token bucket not to be in debt.
  // Returns nullopt when allowed, else how long until it would be.
  std::optional<std::chrono::duration<double>> acquire(const std::string& key,
                                                       Clock::time_point now = Clock::now());
  // Charges tokens used by a finished request (may put the token bucket in debt).
  void charge_tokens(const std::string& key, double tokens, Clock::time_point now = Clock::now());

 private:
  struct Bucket {
    RateLimit limit;
    double requests = 0;  // available
    double tokens = 0;    // available (may go negative)
    Clock::time_point updated;
    bool started = false;
  };
  void refill(Bucket& bucket, Clock::time_point now);

  std::mutex mutex_;
  std::map<std::string, Bucket> buckets_;  // guarded by mutex_
};

}  // namespace supportd::sched
