// The tiered store with Redis and PostgreSQL killed, paused and restarted under it: servers
// of its own (test_servers.h), so that no other test is disturbed. No acknowledged message
// may be lost, PostgreSQL must end with seq_ids 1..N exactly once, and reads stay correct.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/sessions.h"
#include "store_test_support.h"
#include "test_servers.h"
#include "tiered_test_support.h"

namespace supportd::store::testing {
namespace {

std::string text(std::int64_t i) {
  return "message " + std::to_string(i) + " ✓";
}

class TieredFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(redis_.start()) << "redis-server did not start";
    ASSERT_TRUE(postgres_.start()) << "postgres did not start";
    options_ = tiered_options(journal_.path(), redis_.address(), postgres_.uri());
  }
  void open() {
    store_.reset();
    store_ = open_tiered(options_);
    ASSERT_NE(store_, nullptr);
  }
  SessionId create() {
    SessionId id = *signer_.issue("acme", unique_name("user"));
    EXPECT_TRUE(store_->create(id).ok());
    return id;
  }
  // Appends messages next+1..to and checks each acknowledgement and the history so far.
  void append_upto(const SessionId& id, std::int64_t& next, std::int64_t to) {
    for (; next < to;) {
      Result<std::int64_t> seq = store_->append(id, {Role::kUser, text(next + 1)});
      ASSERT_TRUE(seq.ok()) << seq.error().message;
      ASSERT_EQ(*seq, ++next);
      Result<std::vector<Message>> recent = store_->history(id, 3);
      ASSERT_TRUE(recent.ok()) << recent.error().message;
      ASSERT_FALSE(recent->empty());
      ASSERT_EQ(recent->back().seq_id, next);
      ASSERT_EQ(recent->back().text, text(next));
    }
  }
  void expect_archived(const SessionId& id, std::int64_t n) {
    expect_exactly(archived_messages(postgres_.uri(), id), n, text);
  }

  TempDir servers_;
  TempDir journal_;
  RedisServer redis_{servers_.path() / "redis"};
  PostgresServer postgres_{servers_.path() / "postgres"};
  TieredSessionStore::Options options_;
  std::unique_ptr<TieredSessionStore> store_;
  SessionSigner signer_ = test_signer();
};

TEST_F(TieredFaultTest, RedisKilledMidConversation) {
  open();
  SessionId id = create();
  std::int64_t n = 0;
  append_upto(id, n, 10);
  redis_.kill();
  append_upto(id, n, 25);  // acknowledged from the journal
  EXPECT_FALSE(store_->stats().redis_up);
  EXPECT_GT(store_->stats().stale_caches, 0);
  expect_exactly(*store_->history(id, 0), 25, text);  // older ones from PostgreSQL
  ASSERT_TRUE(store_->change_handoff(id, {Handoff::kWaiting, "", {}}).ok());
  ASSERT_TRUE(redis_.start());  // empty: everything it held is gone
  append_upto(id, n, 30);
  ASSERT_TRUE(store_->flush(std::chrono::seconds(20)).ok());
  expect_archived(id, 30);
  std::optional<SessionView> cached = cached_view(redis_.address(), id);
  ASSERT_TRUE(cached.has_value()) << "the Redis copy was not rewritten";
  EXPECT_EQ(cached->conversation.last_seq, 30);
  EXPECT_EQ(cached->conversation.handoff, Handoff::kWaiting);
  EXPECT_EQ(cached->recent.back().text, text(30));
  EXPECT_TRUE(store_->stats().redis_up);
}

TEST_F(TieredFaultTest, PostgresKilledMidConversation) {
  open();
  SessionId id = create();
  std::int64_t n = 0;
  append_upto(id, n, 10);
  ASSERT_TRUE(store_->flush(std::chrono::seconds(20)).ok());
  postgres_.kill();
  append_upto(id, n, 30);  // more than the journal's window of 8: reads come from Redis
  ASSERT_TRUE(store_->rate_conversation(id, 4).ok());
  Result<std::vector<Message>> recent = store_->history(id, 8);
  ASSERT_TRUE(recent.ok()) << recent.error().message;
  EXPECT_EQ(recent->front().seq_id, 23);
  EXPECT_EQ(store_->stats().pending_messages, 20);
  EXPECT_FALSE(store_->flush(std::chrono::milliseconds(300)).ok());
  ASSERT_TRUE(postgres_.start());
  append_upto(id, n, 35);
  ASSERT_TRUE(store_->flush(std::chrono::seconds(30)).ok());
  expect_archived(id, 35);
  EXPECT_EQ(store_->stats().pending_messages, 0);
  PostgresArchive archive({postgres_.uri()});
  Result<std::optional<SessionView>> archived = archive.load(id.key(), 0);
  ASSERT_TRUE(archived.ok() && archived->has_value());
  EXPECT_EQ((*archived)->conversation.last_seq, 35);
  EXPECT_EQ((*archived)->conversation.csat, 4);
}

TEST_F(TieredFaultTest, BothKilledTheJournalKeepsAnswering) {
  open();
  SessionId id = create();
  std::int64_t n = 0;
  append_upto(id, n, 12);
  ASSERT_TRUE(store_->flush(std::chrono::seconds(20)).ok());  // the journal keeps 5..12
  redis_.kill();
  postgres_.kill();
  append_upto(id, n, 20);
  Result<std::vector<Message>> recent = store_->history(id, 16);
  ASSERT_TRUE(recent.ok()) << recent.error().message;
  ASSERT_EQ(recent->size(), 16u);
  EXPECT_EQ(recent->front().seq_id, 5);
  EXPECT_EQ(recent->back().text, text(20));
  // Older than the journal keeps, with both servers gone: a clear error, not a wrong answer.
  Result<std::vector<Message>> all = store_->history(id, 0);
  ASSERT_FALSE(all.ok());
  EXPECT_EQ(all.error().code, ErrorCode::kUnavailable);
  // A conversation this process never saw cannot be served now, and says so.
  SessionId elsewhere = *signer_.issue("acme", "someone");
  Result<std::int64_t> unknown = store_->append(elsewhere, {Role::kUser, "x"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kUnavailable);
  ASSERT_TRUE(postgres_.start());
  ASSERT_TRUE(redis_.start());
  ASSERT_TRUE(store_->flush(std::chrono::seconds(30)).ok());
  expect_archived(id, 20);
  expect_exactly(*store_->history(id, 0), 20, text);
  EXPECT_EQ(cached_view(redis_.address(), id)->conversation.last_seq, 20);
}

TEST_F(TieredFaultTest, ARestartedStoreWritesTheJournalBehind) {
  open();
  SessionId id = create();
  std::int64_t n = 0;
  append_upto(id, n, 5);
  postgres_.kill();
  append_upto(id, n, 15);
  store_.reset();  // the process stops with 10 messages only in its journal
  ASSERT_TRUE(postgres_.start());
  open();
  ASSERT_TRUE(store_->flush(std::chrono::seconds(30)).ok());
  expect_archived(id, 15);
  EXPECT_EQ(*store_->append(id, {Role::kUser, text(16)}), 16);
}

TEST_F(TieredFaultTest, AKilledProcessLosesNoAcknowledgedMessage) {
  open();
  SessionId id = create();
  store_.reset();
  postgres_.kill();  // everything the child acknowledges exists only in its journal
  int acks[2];
  ASSERT_EQ(::pipe(acks), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(acks[0]);
    auto store = TieredSessionStore::open(options_);
    if (!store) ::_exit(2);
    for (std::int64_t i = 1;; ++i) {
      Result<std::int64_t> seq = (*store)->append(id, {Role::kUser, text(i)});
      if (!seq || *seq != i) ::_exit(3);
      if (::write(acks[1], &i, sizeof(i)) != sizeof(i)) ::_exit(4);
    }
  }
  ::close(acks[1]);
  std::int64_t acknowledged = 0;
  std::int64_t value = 0;
  while (acknowledged < 40 && ::read(acks[0], &value, sizeof(value)) == sizeof(value))
    acknowledged = value;
  ::kill(child, SIGKILL);  // mid-append, no shutdown
  int status = 0;
  ::waitpid(child, &status, 0);
  while (::read(acks[0], &value, sizeof(value)) == sizeof(value))
    acknowledged = value;
  ::close(acks[0]);
  ASSERT_GE(acknowledged, 40) << "the child failed: status " << status;

  ASSERT_TRUE(postgres_.start());
  open();
  ASSERT_TRUE(store_->flush(std::chrono::seconds(30)).ok());
  std::vector<Message> archived = archived_messages(postgres_.uri(), id);
  // Every acknowledged message; perhaps one more that was durable but not yet acknowledged.
  ASSERT_GE(static_cast<std::int64_t>(archived.size()), acknowledged);
  ASSERT_LE(static_cast<std::int64_t>(archived.size()), acknowledged + 1);
  expect_exactly(archived, static_cast<std::int64_t>(archived.size()), text);
}

TEST_F(TieredFaultTest, PausedServersDoNotHoldCallersForLong) {
  options_.redis.command_timeout = std::chrono::milliseconds(200);
  options_.postgres.statement_timeout = std::chrono::milliseconds(500);
  open();
  SessionId id = create();
  std::int64_t n = 0;
  append_upto(id, n, 3);
  redis_.pause();  // alive but silent: only timeouts notice
  postgres_.pause();
  append_upto(id, n, 12);
  EXPECT_FALSE(store_->flush(std::chrono::milliseconds(500)).ok());
  redis_.resume();
  postgres_.resume();
  ASSERT_TRUE(store_->flush(std::chrono::seconds(30)).ok());
  expect_archived(id, 12);
  EXPECT_EQ(cached_view(redis_.address(), id)->conversation.last_seq, 12);
}

TEST_F(TieredFaultTest, ForgedAndUnknownIdsNeverReachRedis) {
  open();
  auto sessions = Sessions::open(std::move(store_), test_signer(), {});
  ASSERT_TRUE(sessions.ok());
  Result<Conversation> real = (*sessions)->create("acme", "bob");
  ASSERT_TRUE(real.ok());
  ASSERT_TRUE((*sessions)->append(real->session, {Role::kUser, "hello"}).ok());
  ASSERT_TRUE((*sessions)->flush(std::chrono::seconds(20)).ok());
  RedisClient client(*RedisClient::parse_address(redis_.address()));
  const auto commands = [&] {
    Result<RedisReply> info = client.command({"INFO", "stats"});
    const std::string& s = info->string;
    const std::size_t at = s.find("total_commands_processed:");
    return std::stoll(s.substr(at + 25));
  };
  const long long baseline_first = commands();
  const long long baseline = commands() - baseline_first;  // what one INFO call costs
  const long long before = commands();
  std::string forged = real->session;
  forged.back() = forged.back() == 'A' ? 'B' : 'A';
  const std::string never_issued = test_signer().issue("acme", "bob")->token();
  for (int i = 0; i < 100; ++i) {
    EXPECT_FALSE((*sessions)->append(forged, {Role::kUser, "x"}).ok());
    EXPECT_FALSE((*sessions)->history("random-" + std::to_string(i), 0).ok());
    EXPECT_FALSE((*sessions)->conversation(never_issued).ok());
  }
  const long long after = commands();
  EXPECT_EQ(after - before, baseline) << "refused ids reached Redis";
  SessionsStats stats = (*sessions)->stats();
  EXPECT_EQ(stats.refused_forged, 100);
  EXPECT_EQ(stats.refused_malformed, 100);
  EXPECT_EQ(stats.refused_unknown, 100);
  EXPECT_EQ((*sessions)->history(real->session, 0)->size(), 1u);  // untouched
}

TEST_F(TieredFaultTest, StartingWithPostgresDownFillsTheFilterWhenItReturns) {
  open();
  Sessions::Options options;
  options.rebuild_retry = std::chrono::milliseconds(100);
  std::string token;
  {
    auto sessions = Sessions::open(std::move(store_), test_signer(), options);
    token = (*sessions)->create("acme", "bob")->session;
    ASSERT_TRUE((*sessions)->flush(std::chrono::seconds(20)).ok());
  }
  // A fresh data directory (another process), PostgreSQL down: the filter is incomplete.
  postgres_.kill();
  TempDir other;
  options_.journal_path = other.path() / "journal.sqlite";
  open();
  auto sessions = Sessions::open(std::move(store_), test_signer(), options);
  ASSERT_TRUE(sessions.ok());
  EXPECT_FALSE((*sessions)->stats().bloom_complete);
  // A signed id is looked up (Redis has it); a forged one is still refused at once.
  EXPECT_TRUE((*sessions)->append(token, {Role::kUser, "hello"}).ok());
  EXPECT_FALSE((*sessions)->append(token + "x", {Role::kUser, "x"}).ok());
  ASSERT_TRUE(postgres_.start());
  ASSERT_TRUE((*sessions)->flush(std::chrono::seconds(30)).ok());
  for (int i = 0; i < 300 && !(*sessions)->stats().bloom_complete; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE((*sessions)->stats().bloom_complete);
}

}  // namespace
}  // namespace supportd::store::testing
