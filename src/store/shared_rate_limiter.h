// Rate limits shared by every gateway in front of one Redis: the same token buckets as
// sched::RateLimiter (requests per second with a burst, tokens per minute that a finished
// request may put in debt), kept in one Redis hash per API key and updated by a Lua script
// with Redis's clock, so a key's limit is one limit however many gateways serve it. The hash
// is named after a SHA-256 of the key (no secret in Redis) and expires once it would be full.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "sched/rate_limiter.h"
#include "store/redis_client.h"

namespace supportd::store {

class SharedRateLimiter {
 public:
  // Does not connect: the first call does.
  explicit SharedRateLimiter(RedisClient::Options redis);

  // Takes one request from `key`'s buckets under `limit` (its burst already resolved: > 0).
  // nullopt when allowed, else how long until it would be. unavailable when Redis does not
  // answer (at once while it is known down): the caller decides alone meanwhile.
  Result<std::optional<std::chrono::duration<double>>> acquire(std::string_view key,
                                                               const sched::RateLimit& limit);
  // Charges `tokens` used by a finished request to `key`'s token bucket (may put it in debt).
  Status charge_tokens(std::string_view key, const sched::RateLimit& limit, double tokens);

  // The Redis key of an API key's buckets: "ratelimit:" + hex SHA-256 of it.
  static std::string bucket_key(std::string_view key);

 private:
  Result<std::int64_t> run(std::string_view key, const sched::RateLimit& limit,
                           std::string_view mode, double tokens);

  RedisClient redis_;
};

}  // namespace supportd::store
