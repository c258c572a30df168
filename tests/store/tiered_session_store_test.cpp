// The tiered store against the shared Redis and PostgreSQL of scripts/test.sh.
#include "store/tiered_session_store.h"

#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "session_store_contract.h"
#include "test_servers.h"
#include "tiered_test_support.h"
#include "version1_sqlite_file.h"

namespace supportd::store::testing {
namespace {

std::unique_ptr<SessionStore> open_shared(const std::filesystem::path& dir) {
  const std::string redis = required_env("SUPPORTD_TEST_REDIS");
  const std::string postgres = required_env("SUPPORTD_TEST_POSTGRES");
  if (redis.empty() || postgres.empty()) return nullptr;
  return open_tiered(tiered_options(dir, redis, postgres));
}

INSTANTIATE_TEST_SUITE_P(Tiered, SessionStoreContract,
                         ::testing::Values(StoreFactory{"tiered", open_shared}), contract_name);

class TieredSessionStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    redis_ = required_env("SUPPORTD_TEST_REDIS");
    postgres_ = required_env("SUPPORTD_TEST_POSTGRES");
    ASSERT_FALSE(redis_.empty() || postgres_.empty());
  }
  std::unique_ptr<TieredSessionStore> open(const TempDir& dir) {
    return open_tiered(tiered_options(dir.path(), redis_, postgres_));
  }
  SessionId create(TieredSessionStore& store) {
    SessionId id = *signer_.issue(unique_name("tenant"), "bob");
    EXPECT_TRUE(store.create(id).ok());
    return id;
  }

  std::string redis_;
  std::string postgres_;
  SessionSigner signer_ = test_signer();
};

std::string text(std::int64_t i) {
  return std::string("message ").append(std::to_string(i));
}

TEST_F(TieredSessionStoreTest, MessagesReachRedisAndPostgres) {
  TempDir dir;
  auto store = open(dir);
  SessionId id = create(*store);
  for (int i = 1; i <= 20; ++i)
    ASSERT_EQ(*store->append(id, {Role::kUser, text(i)}), i);
  ASSERT_TRUE(store->flush(std::chrono::seconds(20)).ok());
  expect_exactly(archived_messages(postgres_, id), 20, text);
  std::optional<SessionView> cached = cached_view(redis_, id);
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(cached->conversation.last_seq, 20);
  EXPECT_EQ(cached->recent.size(), 8u);  // the newest recent_messages
  EXPECT_EQ(cached->recent.back().text, text(20));
  RedisClient client(*RedisClient::parse_address(redis_));
  Result<RedisReply> ttl = client.command({"PTTL", "session:" + id.key()});
  ASSERT_TRUE(ttl.ok());
  EXPECT_GT(ttl->integer, 0);
  EXPECT_LE(ttl->integer, 900'000);
  // Older history than the journal keeps comes from PostgreSQL.
  Result<std::vector<Message>> all = store->history(id, 0);
  ASSERT_TRUE(all.ok()) << all.error().message;
  expect_exactly(*all, 20, text);
  EXPECT_EQ(store->stats().pending_messages, 0);
}

TEST_F(TieredSessionStoreTest, ACachedCopyOlderThanTheDatabaseIsReloadedFromIt) {
  TempDir first_dir;
  auto store = open(first_dir);
  SessionId id = create(*store);
  for (int i = 1; i <= 5; ++i)
    ASSERT_TRUE(store->append(id, {Role::kUser, text(i)}).ok());
  ASSERT_TRUE(store->flush(std::chrono::seconds(20)).ok());
  RedisClient client(*RedisClient::parse_address(redis_));
  const std::string old_copy = client.command({"GET", "session:" + id.key()})->string;
  for (int i = 6; i <= 12; ++i)
    ASSERT_TRUE(store->append(id, {Role::kUser, text(i)}).ok());
  ASSERT_TRUE(store->flush(std::chrono::seconds(20)).ok());
  store.reset();

  // Redis goes back to the copy after message 5 (a stale replica, a restored snapshot).
  ASSERT_TRUE(client.command({"SET", "session:" + id.key(), old_copy}).ok());
  // Another process (its own journal) serves the conversation next.
  TempDir second_dir;
  auto other = open(second_dir);
  Result<std::vector<Message>> history = other->history(id, 0);
  ASSERT_TRUE(history.ok()) << history.error().message;
  expect_exactly(*history, 12, text);
  EXPECT_EQ(*other->append(id, {Role::kUser, text(13)}), 13);
  EXPECT_GE(other->stats().postgres_loads, 1);
  std::optional<SessionView> cached = cached_view(redis_, id);
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(cached->conversation.last_seq, 13);
  ASSERT_TRUE(other->flush(std::chrono::seconds(20)).ok());
  expect_exactly(archived_messages(postgres_, id), 13, text);
}

TEST_F(TieredSessionStoreTest, AStaleCopyIsRewrittenByTheProcessThatKnowsBetter) {
  TempDir dir;
  auto store = open(dir);
  SessionId id = create(*store);
  for (int i = 1; i <= 3; ++i)
    ASSERT_TRUE(store->append(id, {Role::kUser, text(i)}).ok());
  RedisClient client(*RedisClient::parse_address(redis_));
  const std::string old_copy = client.command({"GET", "session:" + id.key()})->string;
  ASSERT_TRUE(store->append(id, {Role::kUser, text(4)}).ok());
  ASSERT_TRUE(client.command({"SET", "session:" + id.key(), old_copy}).ok());
  expect_exactly(*store->history(id, 0), 4, text);
  EXPECT_EQ(cached_view(redis_, id)->conversation.last_seq, 4);
  EXPECT_GE(store->stats().cache_repairs, 1);
  // A copy that is not a session at all is dropped and rewritten too.
  ASSERT_TRUE(client.command({"SET", "session:" + id.key(), "garbage"}).ok());
  expect_exactly(*store->history(id, 0), 4, text);
  EXPECT_EQ(cached_view(redis_, id)->conversation.last_seq, 4);
}

std::string meta(std::int64_t i) {
  return std::string(R"({"source":"kb","n":)").append(std::to_string(i)).append("}");
}

// Each layer keeps every message's metadata: the Redis copy, PostgreSQL, and what another
// process (an empty journal) reads back from them.
TEST_F(TieredSessionStoreTest, MetadataReachesRedisAndPostgres) {
  TempDir dir;
  auto store = open(dir);
  SessionId id = create(*store);
  for (int i = 1; i <= 12; ++i)
    ASSERT_EQ(*store->append(id, {Role::kAssistant, text(i), meta(i)}), i);
  ASSERT_TRUE(store->flush(std::chrono::seconds(20)).ok());
  std::vector<Message> archived = archived_messages(postgres_, id);
  ASSERT_EQ(archived.size(), 12u);
  for (const Message& m : archived)
    EXPECT_EQ(m.meta, meta(m.seq_id)) << "PostgreSQL, seq " << m.seq_id;
  std::optional<SessionView> cached = cached_view(redis_, id);
  ASSERT_TRUE(cached.has_value());
  ASSERT_FALSE(cached->recent.empty());
  for (const Message& m : cached->recent)
    EXPECT_EQ(m.meta, meta(m.seq_id)) << "Redis, seq " << m.seq_id;
  store.reset();

  // Another process reads the newest from Redis and the rest from PostgreSQL...
  TempDir other_dir;
  auto other = open(other_dir);
  Result<std::vector<Message>> history = other->history(id, 0);
  ASSERT_TRUE(history.ok()) << history.error().message;
  ASSERT_EQ(history->size(), 12u);
  for (const Message& m : *history)
    EXPECT_EQ(m.meta, meta(m.seq_id)) << "read back, seq " << m.seq_id;
  other.reset();
  // ...and, with the Redis copy gone, everything from PostgreSQL.
  RedisClient client(*RedisClient::parse_address(redis_));
  ASSERT_TRUE(client.command({"DEL", "session:" + id.key()}).ok());
  TempDir third_dir;
  auto third = open(third_dir);
  history = third->history(id, 0);
  ASSERT_TRUE(history.ok()) << history.error().message;
  ASSERT_EQ(history->size(), 12u);
  for (const Message& m : *history)
    EXPECT_EQ(m.meta, meta(m.seq_id)) << "from PostgreSQL, seq " << m.seq_id;
}

// A journal written before messages had metadata, with messages PostgreSQL has not got yet
// (the process stopped while PostgreSQL was down): they are written behind after the upgrade.
TEST_F(TieredSessionStoreTest, AJournalWrittenBeforeMessageMetadataIsWrittenBehind) {
  TempDir dir;
  const SessionId id = *signer_.issue(unique_name("tenant"), "bob");
  write_version1_file(dir.path() / "journal.sqlite", id, /*pending=*/true);
  auto store = open(dir);
  ASSERT_NE(store, nullptr);
  ASSERT_EQ(*store->append(id, {Role::kAssistant, "new", R"({"source":"faq"})"}), 3);
  ASSERT_TRUE(store->flush(std::chrono::seconds(20)).ok());
  std::vector<Message> archived = archived_messages(postgres_, id);
  ASSERT_EQ(archived.size(), 3u);
  EXPECT_EQ(archived[0].text, "Where is my parcel?");
  EXPECT_EQ(archived[1].text, "Use the tracking link.");
  EXPECT_EQ(archived[1].meta, "");
  EXPECT_EQ(archived[2].meta, R"({"source":"faq"})");
}

TEST_F(TieredSessionStoreTest, TwoProcessesWritingOneSessionStayGapless) {
  TempDir first_dir;
  TempDir second_dir;
  auto first = open(first_dir);
  auto second = open(second_dir);
  SessionId id = create(*first);
  ASSERT_TRUE(second->conversation(id).ok());
  constexpr int kEach = 30;
  std::vector<std::pair<std::int64_t, std::string>> acknowledged[2];
  std::thread writers[2];
  for (int w = 0; w < 2; ++w) {
    writers[w] = std::thread([&, w] {
      TieredSessionStore& store = w == 0 ? *first : *second;
      for (int i = 0; i < kEach; ++i) {
        std::string message =
            std::string("w").append(std::to_string(w)).append("-").append(std::to_string(i));
        Result<std::int64_t> seq = store.append(id, {Role::kUser, message});
        if (seq.ok()) acknowledged[w].emplace_back(*seq, message);
      }
    });
  }
  for (auto& writer : writers)
    writer.join();
  ASSERT_TRUE(first->flush(std::chrono::seconds(30)).ok());
  ASSERT_TRUE(second->flush(std::chrono::seconds(30)).ok());
  std::vector<Message> archived = archived_messages(postgres_, id);
  // Every seq_id 1..N exactly once, and every acknowledged message is there at its seq_id.
  for (std::size_t i = 0; i < archived.size(); ++i)
    ASSERT_EQ(archived[i].seq_id, static_cast<std::int64_t>(i + 1));
  std::size_t total = 0;
  for (const auto& mine : acknowledged) {
    total += mine.size();
    for (const auto& [seq, message] : mine) {
      ASSERT_LE(seq, static_cast<std::int64_t>(archived.size()));
      EXPECT_EQ(archived[static_cast<std::size_t>(seq - 1)].text, message) << "seq " << seq;
    }
  }
  EXPECT_EQ(archived.size(), total);
  EXPECT_GE(total, static_cast<std::size_t>(kEach));  // retries may refuse a few, never lose one
}

}  // namespace
}  // namespace supportd::store::testing
