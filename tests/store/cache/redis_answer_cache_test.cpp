// The answer cache's L2 against the shared Redis of scripts/test.sh.
#include <gtest/gtest.h>

#include "store/cache/answer_cache.h"
#include "store_test_support.h"
#include "test_servers.h"

namespace supportd::store::testing {
namespace {

class RedisAnswerCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    address_ = required_env("SUPPORTD_TEST_REDIS");
    ASSERT_FALSE(address_.empty());
    cache_ = std::make_unique<RedisAnswerCache>(*RedisClient::parse_address(address_),
                                                std::chrono::milliseconds(60'000));
  }
  std::string key(const std::string& question) { return answer_key(question, unique_name("kb")); }

  std::string address_;
  std::unique_ptr<RedisAnswerCache> cache_;
};

TEST_F(RedisAnswerCacheTest, PutThenGetWithItsTtl) {
  const std::string k = key("where is my parcel");
  Result<std::optional<CachedAnswer>> missing = cache_->get(k);
  ASSERT_TRUE(missing.ok()) << missing.error().message;
  EXPECT_FALSE(missing->has_value());
  const CachedAnswer answer{"It ships in 2 days. 📦", {"kb/shipping.md#times", "kb/faq.md"}, 42};
  ASSERT_TRUE(cache_->put(k, answer).ok());
  Result<std::optional<CachedAnswer>> hit = cache_->get(k);
  ASSERT_TRUE(hit.ok() && hit->has_value());
  EXPECT_EQ(**hit, answer);
  RedisClient client(*RedisClient::parse_address(address_));
  const std::int64_t ttl = client.command({"PTTL", k})->integer;
  EXPECT_GT(ttl, 0);
  EXPECT_LE(ttl, 60'000);
  ASSERT_TRUE(cache_->put(k, answer, std::chrono::milliseconds(5000)).ok());
  EXPECT_LE(client.command({"PTTL", k})->integer, 5000);
  EXPECT_EQ(cache_->stats().hits, 1);
  EXPECT_EQ(cache_->stats().misses, 1);
}

TEST_F(RedisAnswerCacheTest, AValueThatIsNotAnAnswerIsAMiss) {
  const std::string k = key("q");
  RedisClient client(*RedisClient::parse_address(address_));
  ASSERT_TRUE(client.command({"SET", k, "not msgpack at all", "PX", "60000"}).ok());
  Result<std::optional<CachedAnswer>> result = cache_->get(k);
  ASSERT_TRUE(result.ok());
  EXPECT_FALSE(result->has_value());
}

TEST_F(RedisAnswerCacheTest, InvalidUtf8IsRefused) {
  Status status = cache_->put(key("q"), {"bad \xff", {}, 0});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(RedisAnswerCacheTest, PrewarmFillsL1WithWhatL2Has) {
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i)
    keys.push_back(key(std::string("question ").append(std::to_string(i))));
  for (int i = 0; i < 300; i += 2)
    ASSERT_TRUE(cache_->put(keys[i], {std::string("a").append(std::to_string(i)), {}, i}).ok());
  AnswerLru l1(1000, std::chrono::milliseconds(60'000));
  Result<std::size_t> loaded = prewarm(l1, *cache_, keys);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(*loaded, 150u);
  EXPECT_EQ(l1.get(keys[10])->text, "a10");
  EXPECT_FALSE(l1.get(keys[11]).has_value());
}

TEST(RedisAnswerCacheDownTest, ADeadRedisIsAQuickUnavailableError) {
  RedisClient::Options options;
  options.port = free_port();  // nothing listens there
  RedisAnswerCache cache(options, std::chrono::milliseconds(1000));
  Result<std::optional<CachedAnswer>> result = cache.get("answer:x");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.error().code, ErrorCode::kUnavailable);
  // The breaker is open now: refused without trying.
  Result<std::optional<CachedAnswer>> again = cache.get("answer:x");
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message.find("down"), std::string::npos);
  EXPECT_EQ(cache.stats().errors, 1);
}

}  // namespace
}  // namespace supportd::store::testing
