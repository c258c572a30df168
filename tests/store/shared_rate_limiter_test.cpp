// Rate limits kept in the shared Redis of scripts/test.sh: two limiters (two gateways) draw from
// one bucket per API key, a request waits for the refill it needs, tokens put the key in debt,
// and a Redis that does not answer is an unavailable error (the caller then decides alone).
#include <gtest/gtest.h>

#include "store/shared_rate_limiter.h"
#include "store_test_support.h"
#include "test_servers.h"

namespace supportd::store::testing {
namespace {

class SharedRateLimiterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    address_ = required_env("SUPPORTD_TEST_REDIS");
    ASSERT_FALSE(address_.empty());
  }
  std::unique_ptr<SharedRateLimiter> limiter() {
    return std::make_unique<SharedRateLimiter>(*RedisClient::parse_address(address_));
  }
  std::string address_;
};

TEST_F(SharedRateLimiterTest, TwoGatewaysDrawFromOneBucket) {
  const std::string key = unique_name("sk");
  sched::RateLimit limit;
  limit.requests_per_second = 0.01;  // one more every 100 s: nothing refills during the test
  limit.burst_requests = 3;
  auto a = limiter();
  auto b = limiter();
  int allowed = 0;
  std::optional<std::chrono::duration<double>> last_wait;
  for (int i = 0; i < 6; ++i) {
    auto wait = (i % 2 == 0 ? *a : *b).acquire(key, limit);
    ASSERT_TRUE(wait.ok()) << wait.error().message;
    if (!*wait) ++allowed;
    last_wait = *wait;
  }
  EXPECT_EQ(allowed, 3);
  ASSERT_TRUE(last_wait.has_value());
  // The next request needs one whole refill: about 100 s, never more.
  EXPECT_GT(last_wait->count(), 90);
  EXPECT_LE(last_wait->count(), 100.001);
  // Another key has its own bucket.
  auto other = a->acquire(unique_name("sk"), limit);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

TEST_F(SharedRateLimiterTest, TokensChargedThroughOneGatewayHoldBackTheOther) {
  const std::string key = unique_name("sk");
  sched::RateLimit limit;
  limit.burst_requests = 1;
  limit.tokens_per_minute = 60;  // one token a second
  auto a = limiter();
  auto b = limiter();
  auto first = a->acquire(key, limit);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(first->has_value());
  ASSERT_TRUE(a->charge_tokens(key, limit, 600).ok());  // 540 tokens in debt
  auto held = b->acquire(key, limit);
  ASSERT_TRUE(held.ok());
  ASSERT_TRUE(held->has_value());
  EXPECT_GT((*held)->count(), 500);  // until the debt is paid back
}

TEST_F(SharedRateLimiterTest, TheRedisKeyNamesNoSecret) {
  const std::string name = SharedRateLimiter::bucket_key("sk-very-secret");
  EXPECT_EQ(name.rfind("ratelimit:", 0), 0u);
  EXPECT_EQ(name.find("secret"), std::string::npos);
  EXPECT_EQ(name, SharedRateLimiter::bucket_key("sk-very-secret"));
  EXPECT_NE(name, SharedRateLimiter::bucket_key("sk-very-secret2"));
}

TEST_F(SharedRateLimiterTest, ARedisThatDoesNotAnswerIsUnavailable) {
  RedisClient::Options nowhere;
  nowhere.port = static_cast<int>(free_port());  // nothing listens there
  SharedRateLimiter limiter(nowhere);
  sched::RateLimit limit;
  limit.requests_per_second = 1;
  limit.burst_requests = 1;
  auto wait = limiter.acquire("sk", limit);
  ASSERT_FALSE(wait.ok());
  EXPECT_EQ(wait.error().code, ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace supportd::store::testing
