// API keys on their own: kept as SHA-256 digests and compared in constant time (a wrong key of
// the same length, or one that differs in its last character only, is refused like any other),
// found from "Authorization: Bearer" or X-Api-Key, the caller named by the digest and never by
// the key, and the roles: a customer key is refused on the agent routes, an agent key is not.
#include "api/access.h"

#include <gtest/gtest.h>

namespace supportd::api {
namespace {

constexpr const char* kShopKey = "sk-shop-0123456789abcdef";
constexpr const char* kShopAgentKey = "sk-shop-agents-0123456789";

ApiKey key(std::string_view text, std::string tenant, KeyRole role = KeyRole::kCustomer) {
  ApiKey k;
  k.digest = KeyDigest::of(text);
  k.tenant = std::move(tenant);
  k.role = role;
  return k;
}

Access shop_access() {
  return Access({key(kShopKey, "shop"), key(kShopAgentKey, "shop", KeyRole::kAgent),
                 key("sk-bank-0123456789abcdef", "bank")});
}

http::Request with_header(std::string name, std::string value) {
  http::Request request;
  request.method = "GET";
  request.path = "/v1/sessions";
  request.headers.emplace_back(std::move(name), std::move(value));
  return request;
}

TEST(KeyDigest, MatchesOnlyTheSameKey) {
  EXPECT_TRUE(KeyDigest::of("sk-a").matches(KeyDigest::of("sk-a")));
  EXPECT_FALSE(KeyDigest::of("sk-a").matches(KeyDigest::of("sk-b")));
  EXPECT_FALSE(KeyDigest::of("sk-a").matches(KeyDigest::of("sk-a ")));
  // The digest of no key matches nothing, not even itself.
  EXPECT_FALSE(KeyDigest().matches(KeyDigest()));
  EXPECT_FALSE(KeyDigest().matches(KeyDigest::of("")));
  EXPECT_TRUE(KeyDigest().empty());
  EXPECT_FALSE(KeyDigest::of("").empty());
}

TEST(KeyDigest, ItsNameIsNotTheKey) {
  const std::string name = KeyDigest::of(kShopKey).name();
  EXPECT_EQ(name.size(), 32u);
  EXPECT_EQ(name.find(kShopKey), std::string::npos);
  EXPECT_EQ(KeyDigest().name(), "");
}

TEST(KeyDigest, WipeEmptiesTheSecret) {
  std::string secret = "sk-a-key-long-enough-to-live-on-the-heap-0123456789";
  wipe(secret);
  EXPECT_TRUE(secret.empty());
}

TEST(Access, TheRightKeyNamesItsTenantWhicheverHeaderCarriesIt) {
  const Access access = shop_access();
  for (const auto& request :
       {with_header("authorization", std::string("Bearer ") + kShopKey),
        with_header("authorization", std::string("bEaReR  ") + kShopKey + " "),
        with_header("x-api-key", kShopKey)}) {
    auto caller = access.identify(request);
    ASSERT_TRUE(caller.ok()) << caller.error().message;
    EXPECT_EQ(caller->tenant, "shop");
    EXPECT_EQ(caller->role, KeyRole::kCustomer);
    // The caller is named by the key's digest, never by the key.
    EXPECT_EQ(caller->key, KeyDigest::of(kShopKey).name());
    EXPECT_EQ(caller->key.find(kShopKey), std::string::npos);
  }
}

TEST(Access, AWrongKeyOfTheSameLengthIsRefused) {
  const Access access = shop_access();
  std::string last_differs = kShopKey;
  last_differs.back() = last_differs.back() == 'f' ? 'e' : 'f';
  std::string first_differs = kShopKey;
  first_differs.front() = 'S';
  for (const std::string& wrong :
       {last_differs, first_differs, std::string(last_differs.size(), 'x')}) {
    ASSERT_EQ(wrong.size(), std::string(kShopKey).size());
    auto caller = access.identify(with_header("authorization", "Bearer " + wrong));
    ASSERT_FALSE(caller.ok()) << wrong;
    EXPECT_EQ(caller.error().code, ErrorCode::kUnauthenticated);
    EXPECT_EQ(caller.error().message, "invalid API key");
    // The refusal does not repeat what was sent.
    EXPECT_EQ(caller.error().message.find(wrong), std::string::npos);
  }
  // A prefix or an extension of the key is another key too.
  EXPECT_FALSE(access.identify(with_header("x-api-key", std::string(kShopKey).substr(0, 10))).ok());
  EXPECT_FALSE(access.identify(with_header("x-api-key", std::string(kShopKey) + "0")).ok());
}

TEST(Access, NoKeyIsRefusedOnceKeysAreConfigured) {
  const Access access = shop_access();
  http::Request request;
  request.path = "/v1/sessions";
  auto caller = access.identify(request);
  ASSERT_FALSE(caller.ok());
  EXPECT_EQ(caller.error().code, ErrorCode::kUnauthenticated);
  EXPECT_FALSE(access.identify(with_header("authorization", "Basic c2stc2hvcA==")).ok());
}

TEST(Access, TheAgentRoutesNeedAnAgentKey) {
  const Access access = shop_access();
  auto customer = access.identify_agent(with_header("x-api-key", kShopKey));
  ASSERT_FALSE(customer.ok());
  EXPECT_EQ(customer.error().code, ErrorCode::kUnauthenticated);
  EXPECT_EQ(customer.error().param, "role");  // answered 403 permission_denied
  EXPECT_NE(customer.error().message.find("agent key"), std::string::npos);
  auto agent = access.identify_agent(with_header("x-api-key", kShopAgentKey));
  ASSERT_TRUE(agent.ok()) << agent.error().message;
  EXPECT_EQ(agent->tenant, "shop");
  // An agent key is its tenant's customer key too.
  EXPECT_TRUE(access.identify(with_header("x-api-key", kShopAgentKey)).ok());
  // An unknown key is unauthenticated, not merely without the role.
  auto unknown = access.identify_agent(with_header("x-api-key", "sk-nobody"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kUnauthenticated);
  EXPECT_EQ(unknown.error().param, "");
}

TEST(Access, WithoutKeysEveryoneIsAnonymousAndMayUseEveryRoute) {
  const Access access;
  auto caller = access.identify_agent(with_header("x-api-key", "anything"));
  ASSERT_TRUE(caller.ok());
  EXPECT_EQ(caller->tenant, "anonymous");
  EXPECT_EQ(caller->key, "");
  auto tenant = agent_tenant_of(nullptr, with_header("x-api-key", "anything"));
  ASSERT_TRUE(tenant.ok());
  EXPECT_EQ(*tenant, "anonymous");
}

TEST(Access, EachKeysRateLimitIsItsOwn) {
  ApiKey limited = key(kShopKey, "shop");
  limited.limit.requests_per_second = 0.001;  // one request, then a wait of 1000 s
  Access access({limited, key("sk-bank-0123456789abcdef", "bank")});
  auto shop = access.identify(with_header("x-api-key", kShopKey));
  auto bank = access.identify(with_header("x-api-key", "sk-bank-0123456789abcdef"));
  ASSERT_TRUE(shop.ok() && bank.ok());
  EXPECT_TRUE(access.admit(*shop).ok());
  const Status second = access.admit(*shop);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kRateLimited);
  EXPECT_TRUE(access.admit(*bank).ok());
}

}  // namespace
}  // namespace supportd::api
