// The conversation's values: role and handoff names round-trip, messages and CSAT are checked,
// history ranges, the handoff transitions and the expected state that keeps two agents apart.
#include "store/session_types.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace supportd::store {
namespace {

TEST(SessionTypesTest, RolesAndHandoffStatesRoundTripByName) {
  for (Role role : {Role::kUser, Role::kAssistant, Role::kAgent, Role::kSystem})
    EXPECT_EQ(*parse_role(role_name(role)), role);
  for (Handoff state : {Handoff::kBot, Handoff::kWaiting, Handoff::kTaken, Handoff::kClosed})
    EXPECT_EQ(*parse_handoff(handoff_name(state)), state);
  EXPECT_EQ(parse_role("bot").error().param, "role");
  EXPECT_EQ(parse_handoff("human").error().param, "handoff");
}

TEST(SessionTypesTest, MessagesAreChecked) {
  EXPECT_TRUE(check_new_message({Role::kUser, "hello"}).ok());
  EXPECT_TRUE(check_new_message({Role::kUser, ""}).ok());
  EXPECT_TRUE(check_new_message({Role::kUser, std::string(kMaxMessageBytes, 'a')}).ok());
  Status large = check_new_message({Role::kUser, std::string(kMaxMessageBytes + 1, 'a')});
  EXPECT_EQ(large.error().code, ErrorCode::kTooLarge);
  Status invalid = check_new_message({Role::kUser, "caf\xc3"});
  EXPECT_EQ(invalid.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(invalid.error().param, "text");
  Status nul = check_new_message({Role::kUser, std::string("a\0b", 3)});
  EXPECT_EQ(nul.error().code, ErrorCode::kInvalidArgument);
  EXPECT_FALSE(check_new_message({static_cast<Role>(9), "x"}).ok());
}

TEST(SessionTypesTest, HistoryRanges) {
  const auto range = [](std::int64_t last, std::size_t limit, std::int64_t before) {
    const SeqRange r = history_range(last, limit, before);
    return std::make_pair(r.from, r.to);
  };
  EXPECT_EQ(range(10, 0, 0), std::make_pair(std::int64_t{1}, std::int64_t{10}));
  EXPECT_EQ(range(10, 3, 0), std::make_pair(std::int64_t{8}, std::int64_t{10}));
  EXPECT_EQ(range(10, 3, 5), std::make_pair(std::int64_t{2}, std::int64_t{4}));
  EXPECT_EQ(range(10, 100, 0), std::make_pair(std::int64_t{1}, std::int64_t{10}));
  EXPECT_EQ(range(10, SIZE_MAX, 0), std::make_pair(std::int64_t{1}, std::int64_t{10}));
  EXPECT_EQ(range(10, 0, -5), std::make_pair(std::int64_t{1}, std::int64_t{10}));
  EXPECT_EQ(range(10, 0, 1000), std::make_pair(std::int64_t{1}, std::int64_t{10}));
  EXPECT_EQ(range(10, 5, 1).second, 0);  // empty
  EXPECT_EQ(range(0, 5, 0).second, 0);
}

TEST(SessionTypesTest, CsatIsOneToFive) {
  EXPECT_FALSE(check_csat(0).ok());
  EXPECT_TRUE(check_csat(1).ok());
  EXPECT_TRUE(check_csat(5).ok());
  EXPECT_FALSE(check_csat(6).ok());
}

TEST(SessionTypesTest, HandoffTransitions) {
  const auto ok = [](Handoff from, Handoff to, std::string agent = {}) {
    return check_handoff(from, from == Handoff::kTaken ? "alice" : "", {to, agent, {}}).ok();
  };
  EXPECT_TRUE(ok(Handoff::kBot, Handoff::kWaiting));
  EXPECT_FALSE(ok(Handoff::kBot, Handoff::kTaken, "alice"));
  EXPECT_FALSE(ok(Handoff::kBot, Handoff::kClosed));
  EXPECT_TRUE(ok(Handoff::kWaiting, Handoff::kTaken, "alice"));
  EXPECT_FALSE(ok(Handoff::kWaiting, Handoff::kTaken));  // no agent
  EXPECT_TRUE(ok(Handoff::kWaiting, Handoff::kBot));
  EXPECT_FALSE(ok(Handoff::kWaiting, Handoff::kClosed));
  EXPECT_TRUE(ok(Handoff::kTaken, Handoff::kClosed));
  EXPECT_TRUE(ok(Handoff::kTaken, Handoff::kBot));
  EXPECT_TRUE(ok(Handoff::kTaken, Handoff::kTaken, "bob"));  // transfer
  EXPECT_FALSE(ok(Handoff::kTaken, Handoff::kWaiting));
  EXPECT_TRUE(ok(Handoff::kClosed, Handoff::kBot));
  EXPECT_TRUE(ok(Handoff::kClosed, Handoff::kWaiting));
  EXPECT_TRUE(ok(Handoff::kBot, Handoff::kBot));                // no-op
  EXPECT_FALSE(ok(Handoff::kBot, Handoff::kWaiting, "alice"));  // agent only when taken
}

TEST(SessionTypesTest, ExpectedStateGuardsAgainstTwoAgents) {
  Status second =
      check_handoff(Handoff::kTaken, "alice", {Handoff::kTaken, "bob", Handoff::kWaiting});
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("alice"), std::string::npos);
  EXPECT_TRUE(
      check_handoff(Handoff::kWaiting, "", {Handoff::kTaken, "bob", Handoff::kWaiting}).ok());
}

}  // namespace
}  // namespace supportd::store
