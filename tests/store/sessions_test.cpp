// Sessions in front of a store: signed ids work, malformed, forged and never-issued ids never
// reach the store, the Bloom filter is rebuilt at start, shared-store mode.
#include "store/sessions.h"

#include <gtest/gtest.h>

#include "store/sqlite_session_store.h"
#include "store_test_support.h"

namespace supportd::store::testing {
namespace {

// Forwards to the real store and counts the calls that reach it.
class CountingStore : public SessionStore {
 public:
  CountingStore(std::unique_ptr<SessionStore> inner, std::atomic<int>* calls)
      : inner_(std::move(inner)), calls_(calls) {}
  Result<Conversation> create(const SessionId& id) override {
    return (++*calls_, inner_->create(id));
  }
  Result<std::int64_t> append(const SessionId& id, const NewMessage& m) override {
    return (++*calls_, inner_->append(id, m));
  }
  Result<std::vector<Message>> history(const SessionId& id, std::size_t limit,
                                       std::int64_t before) override {
    return (++*calls_, inner_->history(id, limit, before));
  }
  Result<Conversation> conversation(const SessionId& id) override {
    return (++*calls_, inner_->conversation(id));
  }
  Result<Conversation> change_handoff(const SessionId& id, const HandoffChange& c) override {
    return (++*calls_, inner_->change_handoff(id, c));
  }
  Status rate_answer(const SessionId& id, std::int64_t seq, Thumb t) override {
    return (++*calls_, inner_->rate_answer(id, seq, t));
  }
  Status rate_conversation(const SessionId& id, int csat) override {
    return (++*calls_, inner_->rate_conversation(id, csat));
  }
  Result<Feedback> feedback(const SessionId& id) override {
    return (++*calls_, inner_->feedback(id));
  }
  Result<WaitingList> waiting_for_human(std::string_view tenant, std::size_t limit) override {
    return inner_->waiting_for_human(tenant, limit);
  }
  Status for_each_session(const std::function<void(const std::string&)>& visit) override {
    return inner_->for_each_session(visit);
  }
  Status flush(std::chrono::milliseconds timeout) override { return inner_->flush(timeout); }
  StoreStats stats() override { return inner_->stats(); }

 private:
  std::unique_ptr<SessionStore> inner_;
  std::atomic<int>* calls_;
};

class SessionsTest : public ::testing::Test {
 protected:
  void SetUp() override { open(); }
  void open(Sessions::Options options = {}) {
    sessions_.reset();
    auto sqlite = SqliteSessionStore::open({dir_.path() / "sessions.sqlite", false});
    ASSERT_TRUE(sqlite.ok());
    auto made = Sessions::open(std::make_unique<CountingStore>(std::move(*sqlite), &calls_),
                               test_signer(), options);
    ASSERT_TRUE(made.ok()) << made.error().message;
    sessions_ = std::move(*made);
  }

  TempDir dir_;
  std::atomic<int> calls_{0};
  std::unique_ptr<Sessions> sessions_;
};

TEST_F(SessionsTest, ACreatedConversationWorksThroughItsSignedId) {
  Result<Conversation> created = sessions_->create("acme", "bob");
  ASSERT_TRUE(created.ok()) << created.error().message;
  const std::string& session = created->session;
  EXPECT_EQ(*sessions_->append(session, {Role::kUser, "hello"}), 1);
  EXPECT_EQ(*sessions_->append(session, {Role::kAssistant, "hi"}), 2);
  EXPECT_EQ(sessions_->history(session, 0)->size(), 2u);
  EXPECT_TRUE(sessions_->rate_answer(session, 2, Thumb::kUp).ok());
  EXPECT_TRUE(sessions_->rate_conversation(session, 5).ok());
  EXPECT_EQ(sessions_->feedback(session)->csat, 5);
  EXPECT_EQ(sessions_->change_handoff(session, {Handoff::kWaiting, "", {}})->handoff,
            Handoff::kWaiting);
  EXPECT_EQ(sessions_->waiting_for_human("acme", 5)->conversations.size(), 1u);
  Result<SessionId> id = sessions_->verify(session);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->tenant(), "acme");
}

TEST_F(SessionsTest, MalformedForgedAndNeverIssuedIdsNeverReachTheStore) {
  Result<Conversation> created = sessions_->create("acme", "bob");
  ASSERT_TRUE(created.ok());
  ASSERT_TRUE(sessions_->append(created->session, {Role::kUser, "mine"}).ok());
  const int before = calls_.load();

  Result<std::int64_t> malformed = sessions_->append("not-a-session", {Role::kUser, "x"});
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.error().code, ErrorCode::kInvalidArgument);

  std::string forged = created->session;
  forged[forged.size() - 5] = forged[forged.size() - 5] == 'x' ? 'y' : 'x';
  Result<std::vector<Message>> forged_read = sessions_->history(forged, 0);
  ASSERT_FALSE(forged_read.ok());
  EXPECT_EQ(forged_read.error().code, ErrorCode::kNotFound);

  // Signed with the right secret but never created (e.g. a leaked secret or another store).
  const std::string never = test_signer().issue("acme", "bob")->token();
  Result<Conversation> never_read = sessions_->conversation(never);
  ASSERT_FALSE(never_read.ok());
  EXPECT_EQ(never_read.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(never_read.error().message, "unknown session id");

  EXPECT_EQ(calls_.load(), before) << "a refused id reached the store";
  SessionsStats stats = sessions_->stats();
  EXPECT_EQ(stats.refused_malformed, 1);
  EXPECT_EQ(stats.refused_forged, 1);
  EXPECT_EQ(stats.refused_unknown, 1);
  EXPECT_TRUE(stats.bloom_complete);
  EXPECT_GE(stats.bloom_entries, 1u);
  // The real conversation is untouched.
  EXPECT_EQ(sessions_->history(created->session, 0)->size(), 1u);
}

TEST_F(SessionsTest, TheFilterIsRebuiltFromTheStoreAtStart) {
  std::vector<std::string> ids;
  for (int i = 0; i < 20; ++i)
    ids.push_back(sessions_->create("acme", std::string("u").append(std::to_string(i)))->session);
  open();
  for (const std::string& id : ids)
    ASSERT_TRUE(sessions_->append(id, {Role::kUser, "again"}).ok());
  EXPECT_EQ(sessions_->stats().bloom_entries, 20u);
  EXPECT_EQ(sessions_->stats().refused_unknown, 0);
}

TEST_F(SessionsTest, SharedStoreModeLooksUpSignedIdsItDoesNotKnowOnce) {
  Sessions::Options shared;
  shared.admit_signed_unknown = true;
  open(shared);
  // Another process (same secret, same store) creates a conversation after this one started.
  SessionId elsewhere = *test_signer().issue("acme", "dave");
  {
    auto other = SqliteSessionStore::open({dir_.path() / "sessions.sqlite", false});
    ASSERT_TRUE((*other)->create(elsewhere).ok());
  }
  EXPECT_TRUE(sessions_->append(elsewhere.token(), {Role::kUser, "hi"}).ok());
  EXPECT_EQ(sessions_->stats().bloom_entries, 1u);  // learned
  const std::string never = test_signer().issue("acme", "bob")->token();
  Result<std::int64_t> result = sessions_->append(never, {Role::kUser, "x"});
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(is_unknown_session(result.error()));
  EXPECT_EQ(sessions_->stats().unknown_in_store, 1);
  EXPECT_EQ(sessions_->stats().refused_unknown, 0);
}

TEST_F(SessionsTest, WithoutSharedModeAnIdIssuedElsewhereIsRefused) {
  SessionId elsewhere = *test_signer().issue("acme", "dave");
  {
    auto other = SqliteSessionStore::open({dir_.path() / "sessions.sqlite", false});
    ASSERT_TRUE((*other)->create(elsewhere).ok());
  }
  Result<std::int64_t> result = sessions_->append(elsewhere.token(), {Role::kUser, "hi"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(sessions_->stats().refused_unknown, 1);
}

TEST_F(SessionsTest, BadTenantOrUserAtCreateIsAClearError) {
  Result<Conversation> bad = sessions_->create("acme", "bob smith");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().param, "user");
}

}  // namespace
}  // namespace supportd::store::testing
