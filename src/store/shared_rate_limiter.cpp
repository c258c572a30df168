// SharedRateLimiter (shared_rate_limiter.h): one Lua script refills and takes from both buckets
// atomically on Redis's clock, so gateways' clocks never disagree about a refill.
#include "store/shared_rate_limiter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "store/digest.h"

namespace supportd::store {
namespace {

// KEYS[1] = the buckets; ARGV = mode (acquire | charge), requests per second, burst, tokens per
// minute, tokens charged, expiry ms. Fields: r requests available, t tokens available (may be
// negative), u last refill (ms, Redis's clock). Returns the wait in microseconds (0: allowed).
constexpr std::string_view kBuckets = R"lua(
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local rps = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local tpm = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'r', 't', 'u')
local requests = tonumber(state[1]) or burst
local tokens = tonumber(state[2]) or tpm
local updated = tonumber(state[3]) or now
if now > updated then
  local seconds = (now - updated) / 1000
  requests = math.min(burst, requests + seconds * rps)
  tokens = math.min(tpm, tokens + seconds * tpm / 60)
  updated = now
end
local wait = 0
if ARGV[1] == 'acquire' then
  if rps > 0 and requests < 1 then wait = math.max(wait, (1 - requests) / rps) end
  if tpm > 0 and tokens < 0 then wait = math.max(wait, -tokens / (tpm / 60)) end
  if wait == 0 and rps > 0 then requests = requests - 1 end
elseif tpm > 0 then
  tokens = tokens - tonumber(ARGV[5])
end
redis.call('HSET', KEYS[1], 'r', string.format('%.17g', requests),
           't', string.format('%.17g', tokens), 'u', string.format('%d', updated))
redis.call('PEXPIRE', KEYS[1], ARGV[6])
return math.ceil(wait * 1000000)
)lua";

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

}  // namespace

SharedRateLimiter::SharedRateLimiter(RedisClient::Options redis) : redis_(std::move(redis)) {}

std::string SharedRateLimiter::bucket_key(std::string_view key) {
  return "ratelimit:" + sha256_hex(key);
}

Result<std::int64_t> SharedRateLimiter::run(std::string_view key, const sched::RateLimit& limit,
                                            std::string_view mode, double tokens) {
  static const std::string script(kBuckets);
  // Idle buckets go once they would be full again (at least a minute, the token window).
  double refill_s = 60;
  if (limit.requests_per_second > 0)
    refill_s = std::max(refill_s, limit.burst_requests / limit.requests_per_second);
  const auto expiry_ms = static_cast<std::int64_t>(std::ceil(refill_s * 1000)) + 1000;
  const std::string name = bucket_key(key);
  const std::string rps = number(limit.requests_per_second);
  const std::string burst = number(limit.burst_requests);
  const std::string tpm = number(limit.tokens_per_minute);
  const std::string charged = number(tokens);
  const std::string expiry = std::to_string(expiry_ms);
  Result<RedisReply> reply =
      redis_.command({"EVAL", script, "1", name, mode, rps, burst, tpm, charged, expiry});
  if (!reply) return reply.error();
  if (reply->type != RedisReply::Type::kInteger)
    return Error::make(ErrorCode::kInternal, "the rate-limit script answered no number");
  return reply->integer;
}

Result<std::optional<std::chrono::duration<double>>> SharedRateLimiter::acquire(
    std::string_view key, const sched::RateLimit& limit) {
  Result<std::int64_t> wait_us = run(key, limit, "acquire", 0);
  if (!wait_us) return wait_us.error();
  if (*wait_us <= 0) return std::optional<std::chrono::duration<double>>();
  return std::optional<std::chrono::duration<double>>(
      std::chrono::duration<double>(static_cast<double>(*wait_us) / 1e6));
}

Status SharedRateLimiter::charge_tokens(std::string_view key, const sched::RateLimit& limit,
                                        double tokens) {
  if (limit.tokens_per_minute <= 0) return {};
  Result<std::int64_t> done = run(key, limit, "charge", tokens);
  if (!done) return done.error();
  return {};
}

}  // namespace supportd::store
