// The SessionStore contract, one suite run against every implementation (sqlite_session_store_test
// and tiered_session_store_test instantiate it): seq ids, history paging, metadata, handoff,
// feedback, concurrency and restarts.
#include "session_store_contract.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <thread>
#include <vector>

namespace supportd::store::testing {

std::string contract_name(const ::testing::TestParamInfo<StoreFactory>& info) {
  return info.param.name;
}

namespace {

std::vector<std::int64_t> seqs(const std::vector<Message>& messages) {
  std::vector<std::int64_t> out;
  for (const Message& m : messages)
    out.push_back(m.seq_id);
  return out;
}

std::vector<std::int64_t> range(std::int64_t from, std::int64_t to) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = from; i <= to; ++i)
    out.push_back(i);
  return out;
}

TEST_P(SessionStoreContract, AppendReturnsConsecutiveSeqIdsAndHistoryReadsThemBack) {
  SessionId id = create();
  Result<Conversation> fresh = store_->conversation(id);
  ASSERT_TRUE(fresh.ok()) << fresh.error().message;
  EXPECT_EQ(fresh->session, id.token());
  EXPECT_EQ(fresh->tenant, tenant_);
  EXPECT_EQ(fresh->last_seq, 0);
  EXPECT_EQ(fresh->handoff, Handoff::kBot);
  for (int i = 1; i <= 10; ++i) {
    const Role role = i % 2 ? Role::kUser : Role::kAssistant;
    Result<std::int64_t> seq = store_->append(id, {role, "message " + std::to_string(i)});
    ASSERT_TRUE(seq.ok()) << seq.error().message;
    EXPECT_EQ(*seq, i);
  }
  Result<std::vector<Message>> all = store_->history(id, 0);
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(seqs(*all), range(1, 10));
  EXPECT_EQ((*all)[0].text, "message 1");
  EXPECT_EQ((*all)[0].role, Role::kUser);
  EXPECT_EQ((*all)[9].role, Role::kAssistant);
  EXPECT_GT((*all)[9].created_ms, 0);
  EXPECT_EQ(seqs(*store_->history(id, 3)), range(8, 10));
  EXPECT_EQ(seqs(*store_->history(id, 3, 5)), range(2, 4));
  EXPECT_EQ(seqs(*store_->history(id, 0, 3)), range(1, 2));
  EXPECT_TRUE(store_->history(id, 5, 1)->empty());
  EXPECT_EQ(seqs(*store_->history(id, SIZE_MAX)), range(1, 10));  // a huge limit is "all"
  EXPECT_EQ(seqs(*store_->history(id, 2, -7)), range(9, 10));     // no upper bound
  EXPECT_EQ(store_->waiting_for_human(tenant_, SIZE_MAX)->conversations.size(), 0u);
  EXPECT_EQ(store_->conversation(id)->last_seq, 10);
}

TEST_P(SessionStoreContract, UnicodeTextIsKeptExactly) {
  SessionId id = create();
  const std::string text = "Where is my parcel? 我的包裹在哪里？ 📦 \"quotes\" 'and' \\ ; DROP";
  ASSERT_TRUE(store_->append(id, {Role::kUser, text}).ok());
  EXPECT_EQ(store_->history(id, 1)->at(0).text, text);
}

TEST_P(SessionStoreContract, MetadataIsKeptExactlyAndSurvivesARestart) {
  SessionId id = create();
  const std::string answer_meta =
      R"({"source":"kb","citations":[{"id":"faq/where-is-my-order","title":"Où est ma commande ?",)"
      R"("snippet":"\"tracking\" 📦"}]})";
  const std::string agent_meta = R"({"agent":"Ann"})";
  ASSERT_EQ(*store_->append(id, {Role::kUser, "Where is my parcel?"}), 1);
  ASSERT_EQ(*store_->append(id, {Role::kAssistant, "Use the tracking link.", answer_meta}), 2);
  ASSERT_EQ(*store_->append(id, {Role::kAgent, "Hello, I'm Ann.", agent_meta}), 3);
  const auto check = [&] {
    Result<std::vector<Message>> all = store_->history(id, 0);
    ASSERT_TRUE(all.ok()) << all.error().message;
    ASSERT_EQ(all->size(), 3u);
    EXPECT_EQ((*all)[0].meta, "");
    EXPECT_EQ((*all)[1].meta, answer_meta);
    EXPECT_EQ((*all)[1].text, "Use the tracking link.");
    EXPECT_EQ((*all)[2].meta, agent_meta);
  };
  check();
  reopen();
  check();
}

TEST_P(SessionStoreContract, BadMetadataIsRefusedAndNothingIsStored) {
  SessionId id = create();
  Result<std::int64_t> invalid = store_->append(id, {Role::kAssistant, "a", "{\"x\":\"\xff\"}"});
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(invalid.error().param, "meta");
  Result<std::int64_t> nul =
      store_->append(id, {Role::kAssistant, "a", std::string("{\"x\":\"\0\"}", 9)});
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.error().param, "meta");
  Result<std::int64_t> large =
      store_->append(id, {Role::kAssistant, "a", std::string(kMaxMetaBytes + 1, 'x')});
  ASSERT_FALSE(large.ok());
  EXPECT_EQ(large.error().code, ErrorCode::kTooLarge);
  EXPECT_EQ(*store_->append(id, {Role::kAssistant, "b", std::string(kMaxMetaBytes, ' ')}), 1);
  EXPECT_EQ(seqs(*store_->history(id, 0)), range(1, 1));
}

TEST_P(SessionStoreContract, UnknownSessionIsNotFoundAndOthersAreUnaffected) {
  SessionId known = create();
  ASSERT_TRUE(store_->append(known, {Role::kUser, "hi"}).ok());
  SessionId unknown = *signer_.issue("acme", "bob");  // signed, never created
  Result<std::int64_t> append = store_->append(unknown, {Role::kUser, "x"});
  ASSERT_FALSE(append.ok());
  EXPECT_TRUE(is_unknown_session(append.error())) << append.error().message;
  EXPECT_TRUE(is_unknown_session(store_->history(unknown, 0).error()));
  EXPECT_TRUE(is_unknown_session(store_->conversation(unknown).error()));
  EXPECT_FALSE(store_->rate_conversation(unknown, 3).ok());
  EXPECT_FALSE(store_->change_handoff(unknown, {Handoff::kWaiting, "", {}}).ok());
  EXPECT_EQ(seqs(*store_->history(known, 0)), range(1, 1));
}

TEST_P(SessionStoreContract, BadMessagesAreRefusedAndNothingIsStored) {
  SessionId id = create();
  ASSERT_TRUE(store_->append(id, {Role::kUser, "ok"}).ok());
  Result<std::int64_t> invalid = store_->append(id, {Role::kUser, "bad \xff utf-8"});
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.error().code, ErrorCode::kInvalidArgument);
  Result<std::int64_t> large =
      store_->append(id, {Role::kUser, std::string(kMaxMessageBytes + 1, 'x')});
  ASSERT_FALSE(large.ok());
  EXPECT_EQ(large.error().code, ErrorCode::kTooLarge);
  EXPECT_EQ(*store_->append(id, {Role::kUser, "next"}), 2);
  EXPECT_EQ(seqs(*store_->history(id, 0)), range(1, 2));
}

TEST_P(SessionStoreContract, ConcurrentAppendsToOneSessionGetEverySeqIdOnce) {
  SessionId id = create();
  constexpr int kThreads = 4;
  constexpr int kEach = 50;
  std::vector<std::vector<std::int64_t>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        Result<std::int64_t> seq =
            store_->append(id, {Role::kUser, std::to_string(t) + ":" + std::to_string(i)});
        if (seq.ok()) got[t].push_back(*seq);
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  std::set<std::int64_t> all;
  for (const auto& mine : got) {
    ASSERT_EQ(mine.size(), static_cast<std::size_t>(kEach));
    EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));  // monotonic per caller
    all.insert(mine.begin(), mine.end());
  }
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kThreads * kEach));
  EXPECT_EQ(*all.begin(), 1);
  EXPECT_EQ(*all.rbegin(), kThreads * kEach);
  // The history holds each caller's messages in the order it sent them, at the seq_ids it got.
  Result<std::vector<Message>> history = store_->history(id, 0);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), static_cast<std::size_t>(kThreads * kEach));
  std::map<int, int> next;
  for (const Message& m : *history) {
    const int t = std::stoi(m.text.substr(0, m.text.find(':')));
    const int i = std::stoi(m.text.substr(m.text.find(':') + 1));
    EXPECT_EQ(i, next[t]++);
    EXPECT_EQ(got[t][i], m.seq_id);
  }
}

TEST_P(SessionStoreContract, EverythingSurvivesARestart) {
  SessionId id = create();
  for (int i = 1; i <= 5; ++i)
    ASSERT_TRUE(store_->append(id, {i == 2 ? Role::kAssistant : Role::kUser, "m"}).ok());
  ASSERT_TRUE(store_->change_handoff(id, {Handoff::kWaiting, "", {}}).ok());
  ASSERT_TRUE(store_->rate_answer(id, 2, Thumb::kDown).ok());
  ASSERT_TRUE(store_->rate_conversation(id, 4).ok());
  reopen();
  Result<Conversation> state = store_->conversation(id);
  ASSERT_TRUE(state.ok()) << state.error().message;
  EXPECT_EQ(state->last_seq, 5);
  EXPECT_EQ(state->handoff, Handoff::kWaiting);
  EXPECT_EQ(state->csat, 4);
  EXPECT_EQ(seqs(*store_->history(id, 0)), range(1, 5));
  Result<Feedback> feedback = store_->feedback(id);
  ASSERT_TRUE(feedback.ok());
  ASSERT_EQ(feedback->answers.size(), 1u);
  EXPECT_EQ(feedback->answers[0].seq_id, 2);
  EXPECT_EQ(feedback->answers[0].thumb, Thumb::kDown);
  EXPECT_EQ(*store_->append(id, {Role::kUser, "after restart"}), 6);
  std::set<std::string> tokens;
  ASSERT_TRUE(store_->for_each_session([&](const std::string& t) { tokens.insert(t); }).ok());
  EXPECT_TRUE(tokens.count(id.token()));
}

TEST_P(SessionStoreContract, FeedbackOnAnswersAndConversations) {
  SessionId id = create();
  ASSERT_TRUE(store_->append(id, {Role::kUser, "question"}).ok());
  ASSERT_TRUE(store_->append(id, {Role::kAssistant, "answer"}).ok());
  ASSERT_TRUE(store_->append(id, {Role::kAssistant, "another answer"}).ok());
  ASSERT_TRUE(store_->rate_answer(id, 2, Thumb::kUp).ok());
  ASSERT_TRUE(store_->rate_answer(id, 3, Thumb::kUp).ok());
  ASSERT_TRUE(store_->rate_answer(id, 2, Thumb::kDown).ok());  // the last vote wins
  Status question = store_->rate_answer(id, 1, Thumb::kUp);
  ASSERT_FALSE(question.ok());
  EXPECT_EQ(question.error().code, ErrorCode::kInvalidArgument);
  Status missing = store_->rate_answer(id, 99, Thumb::kUp);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(store_->rate_conversation(id, 0).ok());
  EXPECT_FALSE(store_->rate_conversation(id, 6).ok());
  ASSERT_TRUE(store_->rate_conversation(id, 2).ok());
  ASSERT_TRUE(store_->rate_conversation(id, 5).ok());
  Result<Feedback> feedback = store_->feedback(id);
  ASSERT_TRUE(feedback.ok()) << feedback.error().message;
  ASSERT_EQ(feedback->answers.size(), 2u);
  EXPECT_EQ(feedback->answers[0].seq_id, 2);
  EXPECT_EQ(feedback->answers[0].thumb, Thumb::kDown);
  EXPECT_EQ(feedback->answers[1].thumb, Thumb::kUp);
  EXPECT_EQ(feedback->csat, 5);
  EXPECT_EQ(store_->conversation(id)->csat, 5);
}

TEST_P(SessionStoreContract, HandoffLifecycleAndWaitingList) {
  const std::string other = unique_name("other");
  SessionId first = create(tenant_, "first");
  SessionId second = create(tenant_, "second");
  SessionId other_tenant = create(other, "carol");
  ASSERT_TRUE(store_->change_handoff(first, {Handoff::kWaiting, "", {}}).ok());
  ASSERT_TRUE(store_->change_handoff(other_tenant, {Handoff::kWaiting, "", {}}).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(2));  // distinct handoff times
  ASSERT_TRUE(store_->change_handoff(second, {Handoff::kWaiting, "", {}}).ok());

  Result<WaitingList> waiting = store_->waiting_for_human(tenant_, 10);
  ASSERT_TRUE(waiting.ok()) << waiting.error().message;
  ASSERT_EQ(waiting->conversations.size(), 2u);
  EXPECT_EQ(waiting->conversations[0].session, first.token());  // oldest first
  EXPECT_EQ(waiting->conversations[1].session, second.token());
  EXPECT_FALSE(waiting->partial);
  EXPECT_EQ(store_->waiting_for_human(tenant_, 1)->conversations.size(), 1u);
  EXPECT_EQ(store_->waiting_for_human(other, 10)->conversations.size(), 1u);

  Result<Conversation> taken =
      store_->change_handoff(first, {Handoff::kTaken, "alice", Handoff::kWaiting});
  ASSERT_TRUE(taken.ok()) << taken.error().message;
  EXPECT_EQ(taken->handoff, Handoff::kTaken);
  EXPECT_EQ(taken->agent, "alice");
  Result<Conversation> late =
      store_->change_handoff(first, {Handoff::kTaken, "bob", Handoff::kWaiting});
  ASSERT_FALSE(late.ok());
  EXPECT_NE(late.error().message.find("alice"), std::string::npos);
  EXPECT_EQ(store_->waiting_for_human(tenant_, 10)->conversations.size(), 1u);

  Result<Conversation> closed = store_->change_handoff(first, {Handoff::kClosed, "", {}});
  ASSERT_TRUE(closed.ok());
  EXPECT_EQ(closed->agent, "alice");  // who closed it
  EXPECT_FALSE(store_->change_handoff(first, {Handoff::kTaken, "bob", {}}).ok());
  Result<Conversation> back = store_->change_handoff(first, {Handoff::kBot, "", {}});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->handoff, Handoff::kBot);
  EXPECT_EQ(back->agent, "");
  EXPECT_EQ(store_->conversation(first)->handoff, Handoff::kBot);
  EXPECT_FALSE(store_->waiting_for_human("bad tenant!", 10).ok());
}

TEST_P(SessionStoreContract, TwoAgentsRacingForOneConversationOneWins) {
  SessionId id = create();
  ASSERT_TRUE(store_->change_handoff(id, {Handoff::kWaiting, "", {}}).ok());
  std::atomic<int> wins{0};
  std::vector<std::thread> agents;
  for (int a = 0; a < 4; ++a) {
    agents.emplace_back([&, a] {
      if (store_
              ->change_handoff(id,
                               {Handoff::kTaken, "agent" + std::to_string(a), Handoff::kWaiting})
              .ok())
        ++wins;
    });
  }
  for (auto& agent : agents)
    agent.join();
  EXPECT_EQ(wins.load(), 1);
  EXPECT_EQ(store_->conversation(id)->handoff, Handoff::kTaken);
}

}  // namespace
}  // namespace supportd::store::testing
