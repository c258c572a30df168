// open_stores against real servers: SQLite without servers (surviving a restart), tiered with
// Redis and PostgreSQL (shared by two processes' stores), Redis alone caching answers only, bad
// settings named.
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

TEST(OpenStoresTest, TwoGatewaysOnOneTieredStoreSeeEachOthersConversations) {
  // Two processes' stores (two data directories, one Redis, one PostgreSQL, one secret), both
  // open before the conversation exists: the one that did not create it still serves it.
  TempDir dir_a;
  TempDir dir_b;
  StoreConfig config;
  config.redis = required_env("SUPPORTD_TEST_REDIS");
  config.postgres = required_env("SUPPORTD_TEST_POSTGRES");
  config.session_secret = "a shared secret of at least thirty-two bytes";
  config.data_dir = dir_a.path();
  Result<Stores> a = open_stores(config);
  ASSERT_TRUE(a.ok()) << a.error().message;
  config.data_dir = dir_b.path();
  Result<Stores> b = open_stores(config);
  ASSERT_TRUE(b.ok()) << b.error().message;

  const std::string session = a->sessions->create(unique_name("t"), "bob")->session;
  ASSERT_EQ(*a->sessions->append(session, {Role::kUser, "where is my parcel"}), 1);
  Result<std::int64_t> on_b = b->sessions->append(session, {Role::kUser, "and my refund"});
  ASSERT_TRUE(on_b.ok()) << on_b.error().message;
  EXPECT_EQ(*on_b, 2);
  Result<std::vector<Message>> history = a->sessions->history(session, 10);
  ASSERT_TRUE(history.ok()) << history.error().message;
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[1].text, "and my refund");
  EXPECT_EQ(b->sessions->stats().refused_unknown, 0);
  // A forged id is still refused.
  const std::string forged = session.substr(0, session.rfind('.')) + ".x";
  EXPECT_FALSE(b->sessions->append(forged, {Role::kUser, "x"}).ok());
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
