// API keys to tenants, priorities and rate limits (see access.h), and tenant_of for the desk's
// handlers.
#include "api/access.h"

#include <cmath>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "api/request_tracing.h"
#include "core/text.h"

namespace supportd::api {

Access::Access(std::vector<ApiKey> keys, std::unique_ptr<store::SharedRateLimiter> shared)
    : shared_(std::move(shared)) {
  for (auto& k : keys) {
    if (k.tenant.empty()) k.tenant = "default";
    if (k.limit.burst_requests <= 0)
      k.limit.burst_requests = std::max(1.0, k.limit.requests_per_second);
    const std::string name = k.digest.name();
    limiter_.set_limit(name, k.limit);
    keys_.emplace(name, std::move(k));
  }
}

Result<Caller> Access::identify(const http::Request& request) const {
  std::string_view key;
  const std::string_view authorization = request.header("authorization");
  if (authorization.size() > 7 && http::lower_case(authorization.substr(0, 7)) == "bearer ") {
    key = trim(authorization.substr(7));
  } else {
    key = request.header("x-api-key");
  }
  if (keys_.empty()) {
    tag_tenant(Caller{}.tenant);
    return Caller{};
  }
  if (key.empty()) {
    return Error{
        ErrorCode::kUnauthenticated, "an API key is required (Authorization: Bearer <key>)", {}, 0};
  }
  // Every configured digest is compared, in constant time each, whichever matches.
  const KeyDigest sent = KeyDigest::of(key);
  const ApiKey* found = nullptr;
  for (const auto& [name, configured] : keys_) {
    if (configured.digest.matches(sent) && found == nullptr) found = &configured;
  }
  if (found == nullptr) return Error{ErrorCode::kUnauthenticated, "invalid API key", {}, 0};
  tag_tenant(found->tenant);
  return Caller{found->digest.name(), found->tenant, found->priority, found->role};
}

Result<Caller> Access::identify_agent(const http::Request& request) const {
  auto caller = identify(request);
  if (caller && caller->role != KeyRole::kAgent) {
    // Answered 403 permission_denied (errors.cpp), not 401: the key is known.
    return Error{ErrorCode::kUnauthenticated,
                 "this route is the agent console's: it needs an agent key (role = \"agent\" in "
                 "[[api_keys]]), not a customer key",
                 "role", 0};
  }
  return caller;
}

void Access::note_shared(bool answered) {
  if (shared_down_.exchange(!answered) == !answered) return;
  if (answered) {
    spdlog::info("rate limits: shared through Redis again");
  } else {
    spdlog::warn("rate limits: Redis does not answer; each gateway enforces them alone meanwhile");
  }
}

Status Access::admit(const Caller& caller) {
  if (caller.key.empty()) return {};
  std::optional<std::chrono::duration<double>> wait;
  auto it = keys_.find(caller.key);
  const bool limited = it != keys_.end() && (it->second.limit.requests_per_second > 0 ||
                                             it->second.limit.tokens_per_minute > 0);
  bool decided = false;
  if (shared_ && limited) {
    auto shared_wait = shared_->acquire(caller.key, it->second.limit);
    note_shared(shared_wait.ok());
    if (shared_wait) {
      wait = *shared_wait;
      decided = true;
    }
  }
  if (!decided) wait = limiter_.acquire(caller.key);
  if (wait) {
    Error error =
        Error::make(ErrorCode::kRateLimited,
                    fmt::format("rate limit of API key for tenant '{}' reached", caller.tenant));
    error.retry_after_s = std::max(1, static_cast<int>(std::ceil(wait->count())));
    return error;
  }
  return {};
}

void Access::charge_tokens(const Caller& caller, int tokens) {
  if (caller.key.empty()) return;
  auto it = keys_.find(caller.key);
  if (shared_ && it != keys_.end() && it->second.limit.tokens_per_minute > 0) {
    const Status charged = shared_->charge_tokens(caller.key, it->second.limit, tokens);
    note_shared(charged.ok());
    if (charged) return;
  }
  limiter_.charge_tokens(caller.key, tokens);
}

std::map<std::string, double> Access::tenant_weights() const {
  std::map<std::string, double> weights;
  for (const auto& [key, k] : keys_)
    weights[k.tenant] = std::max(weights[k.tenant], k.weight);
  return weights;
}

Result<std::string> tenant_of(const Access* access, const http::Request& request) {
  if (access == nullptr) {
    tag_tenant(Caller{}.tenant);
    return Caller{}.tenant;
  }
  auto caller = access->identify(request);
  if (!caller) return caller.error();
  return caller->tenant;
}

Result<std::string> agent_tenant_of(const Access* access, const http::Request& request) {
  if (access == nullptr) return tenant_of(access, request);
  auto caller = access->identify_agent(request);
  if (!caller) return caller.error();
  return caller->tenant;
}

}  // namespace supportd::api
