// Who is calling: API keys map to tenants, with a default priority class and rate limits.
// Without configured keys everyone is the tenant "anonymous" and no key is required. With a
// shared limiter (Redis, behind several gateways) a key's limit is one limit across them; while
// Redis does not answer, each process enforces the limit alone (and says so in its log).
// Thread-safety: immutable after construction, except the rate limiters (thread-safe
// themselves).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "http/message.h"
#include "sched/priority.h"
#include "sched/rate_limiter.h"
#include "store/shared_rate_limiter.h"

namespace supportd::api {

struct ApiKey {
  std::string key;
  std::string tenant;
  sched::Priority priority = sched::Priority::kNormal;  // when a request does not say
  double weight = 1.0;                                  // the tenant's share of engine tokens
  sched::RateLimit limit;
};

struct Caller {
  std::string key;  // empty when anonymous
  std::string tenant = "anonymous";
  sched::Priority default_priority = sched::Priority::kNormal;
};

class Access {
 public:
  // `shared`: the limits kept in Redis for every gateway (null: this process's own).
  explicit Access(std::vector<ApiKey> keys = {},
                  std::unique_ptr<store::SharedRateLimiter> shared = nullptr);

  // Identifies the caller from "Authorization: Bearer <key>" (or "X-Api-Key").
  // kUnavailable-free: errors are 401-class (code "invalid_api_key").
  Result<Caller> identify(const http::Request& request) const;

  // Charges a request against the caller's limits; an error carries Retry-After.
  Status admit(const Caller& caller);
  void charge_tokens(const Caller& caller, int tokens);

  // Tenant weights for the scheduler.
  std::map<std::string, double> tenant_weights() const;
  bool keys_required() const { return !keys_.empty(); }

 private:
  // Logs once when the shared limits stop (or start again) answering.
  void note_shared(bool answered);

  std::map<std::string, ApiKey> keys_;  // limits with their burst resolved
  sched::RateLimiter limiter_;
  const std::unique_ptr<store::SharedRateLimiter> shared_;
  std::atomic<bool> shared_down_{false};
};

// The tenant of the request's caller; "anonymous" when there is no Access (the desk without keys).
Result<std::string> tenant_of(const Access* access, const http::Request& request);

}  // namespace supportd::api
