// Who is calling: API keys map to tenants, with a role, a default priority class and rate
// limits. Keys are kept as digests and compared in constant time (api/key_digest.h); none is
// ever logged. Without configured keys everyone is the tenant "anonymous", no key is required
// and every caller may use the agent routes (a demo: serve warns about it). With a
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
#include <string_view>
#include <vector>

#include "api/key_digest.h"
#include "core/status.h"
#include "http/message.h"
#include "sched/priority.h"
#include "sched/rate_limiter.h"
#include "store/shared_rate_limiter.h"

namespace supportd::api {

// What a key may do. A customer key (the default) calls the customer endpoints and the
// OpenAI-compatible API: it is the widget's, which every visitor of a page that embeds the
// widget can read. An agent key also calls the agent console's endpoints (/v1/agent/...) for
// its tenant.
enum class KeyRole { kCustomer, kAgent };

// "customer" or "agent"; nullopt for anything else.
inline std::optional<KeyRole> parse_key_role(std::string_view name) {
  if (name == "customer") return KeyRole::kCustomer;
  if (name == "agent") return KeyRole::kAgent;
  return std::nullopt;
}

struct ApiKey {
  KeyDigest digest;  // of the key: the key itself is not kept
  std::string tenant;
  sched::Priority priority = sched::Priority::kNormal;  // when a request does not say
  double weight = 1.0;                                  // the tenant's share of engine tokens
  sched::RateLimit limit;
  KeyRole role = KeyRole::kCustomer;
};

struct Caller {
  std::string key;  // the key's digest (KeyDigest::name), never the key; empty when anonymous
  std::string tenant = "anonymous";
  sched::Priority default_priority = sched::Priority::kNormal;
  KeyRole role = KeyRole::kAgent;  // anonymous callers may do everything
};

class Access {
 public:
  // `shared`: the limits kept in Redis for every gateway (null: this process's own).
  explicit Access(std::vector<ApiKey> keys = {},
                  std::unique_ptr<store::SharedRateLimiter> shared = nullptr);

  // Identifies the caller from "Authorization: Bearer <key>" (or "X-Api-Key"): the sent key's
  // digest is compared with every configured one in constant time. Errors are
  // kUnauthenticated (401, code "invalid_api_key"): no key, or an unknown one.
  Result<Caller> identify(const http::Request& request) const;
  // identify(), for the agent routes: a customer key is refused with kUnauthenticated and the
  // param "role" (403 permission_denied, api/errors.cpp).
  Result<Caller> identify_agent(const http::Request& request) const;

  // Charges a request against the caller's limits; an error carries Retry-After.
  Status admit(const Caller& caller);
  void charge_tokens(const Caller& caller, int tokens);

  // Tenant weights for the scheduler.
  std::map<std::string, double> tenant_weights() const;
  bool keys_required() const { return !keys_.empty(); }

 private:
  // Logs once when the shared limits stop (or start again) answering.
  void note_shared(bool answered);

  std::map<std::string, ApiKey> keys_;  // by digest name; limits with their burst resolved
  sched::RateLimiter limiter_;
  const std::unique_ptr<store::SharedRateLimiter> shared_;
  std::atomic<bool> shared_down_{false};
};

// The tenant of the request's caller; "anonymous" when there is no Access (the desk without keys).
Result<std::string> tenant_of(const Access* access, const http::Request& request);
// The same for the agent routes: identify_agent's errors.
Result<std::string> agent_tenant_of(const Access* access, const http::Request& request);

}  // namespace supportd::api
