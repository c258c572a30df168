// open_stores against real servers: SQLite without servers (surviving a restart), tiered with
// Redis and PostgreSQL, Redis alone caching answers only, bad settings named.
#include "store/open_stores.h"

#include <gtest/gtest.h>

#include "store_test_support.h"
#include "test_servers.h"

namespace supportd::store::testing {
namespace {

TEST(OpenStoresTest, WithNoServersConversationsAreInSqliteAndSurviveARestart) {
  TempDir dir;
  StoreConfig config;
  config.data_dir = dir.path();
  std::string session;
  {
    Result<Stores> stores = open_stores(config);
    ASSERT_TRUE(stores.ok()) << stores.error().message;
    EXPECT_STREQ(stores->sessions->stats().store.backend, "sqlite");
    EXPECT_EQ(stores->answers_l2, nullptr);
    ASSERT_NE(stores->answers_l1, nullptr);
    ASSERT_NE(stores->answer_log, nullptr);
    session = stores->sessions->create("acme", "bob")->session;
    ASSERT_TRUE(stores->sessions->append(session, {Role::kUser, "hello"}).ok());
  }
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "sessions.sqlite"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "session-secret"));
  Result<Stores> again = open_stores(config);  // the same secret: the id still verifies
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again->sessions->append(session, {Role::kAssistant, "hi"}), 2);
}

TEST(OpenStoresTest, WithRedisAndPostgresConversationsAreTiered) {
  TempDir dir;
  StoreConfig config;
  config.data_dir = dir.path();
  config.redis = required_env("SUPPORTD_TEST_REDIS");
  config.postgres = required_env("SUPPORTD_TEST_POSTGRES");
  config.session_secret = "a shared secret of at least thirty-two bytes";
  Result<Stores> stores = open_stores(config);
  ASSERT_TRUE(stores.ok()) << stores.error().message;
  EXPECT_STREQ(stores->sessions->stats().store.backend, "tiered");
  ASSERT_NE(stores->answers_l2, nullptr);
  const std::string session = stores->sessions->create(unique_name("t"), "bob")->session;
  EXPECT_EQ(*stores->sessions->append(session, {Role::kUser, "hello"}), 1);
  EXPECT_TRUE(stores->sessions->flush(std::chrono::seconds(20)).ok());
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "journal.sqlite"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "session-secret"));
}

TEST(OpenStoresTest, RedisAloneCachesAnswersWhileConversationsStayInSqlite) {
  TempDir dir;
  StoreConfig config;
  config.data_dir = dir.path();
  config.redis = "127.0.0.1:" + std::to_string(free_port());  // down: not an error at start
  Result<Stores> stores = open_stores(config);
  ASSERT_TRUE(stores.ok()) << stores.error().message;
  EXPECT_STREQ(stores->sessions->stats().store.backend, "sqlite");
  EXPECT_NE(stores->answers_l2, nullptr);
}

TEST(OpenStoresTest, BadSettingsAreNamed) {
  TempDir dir;
  StoreConfig config;
  config.data_dir = dir.path();
  config.postgres = "postgresql://nobody@127.0.0.1:1/x";
  EXPECT_EQ(open_stores(config).error().param, "redis");
  config.redis = "no-port";
  EXPECT_EQ(open_stores(config).error().param, "redis");
  config.redis = "127.0.0.1:99999";
  EXPECT_EQ(open_stores(config).error().param, "redis");
  config = {};
  EXPECT_EQ(open_stores(config).error().param, "data_dir");
  config.data_dir = dir.path();
  config.session_secret = "too short";
  EXPECT_EQ(open_stores(config).error().param, "session_secret");
}

}  // namespace
}  // namespace supportd::store::testing
