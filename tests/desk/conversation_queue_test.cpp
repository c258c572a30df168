// The per-conversation queue: one conversation's turns run one at a time in arrival order,
// other conversations do not wait, a full queue refuses the turn.
#include "desk/conversation_queue.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace supportd::desk {
namespace {

TEST(ConversationQueue, TurnsOfOneConversationRunOneAtATimeInArrivalOrder) {
  ConversationQueue queue(8);
  std::vector<std::string> started;
  for (const char* turn : {"first", "second", "third"})
    EXPECT_TRUE(queue.enter("a", [&started, turn] { started.push_back(turn); }));
  EXPECT_EQ(started, std::vector<std::string>{"first"});
  queue.leave("a");
  EXPECT_EQ(started, (std::vector<std::string>{"first", "second"}));
  queue.leave("a");
  queue.leave("a");
  EXPECT_EQ(started, (std::vector<std::string>{"first", "second", "third"}));
  EXPECT_EQ(queue.busy(), 0u);
}

TEST(ConversationQueue, OtherConversationsDoNotWait) {
  ConversationQueue queue(8);
  int started = 0;
  EXPECT_TRUE(queue.enter("a", [&] { ++started; }));
  EXPECT_TRUE(queue.enter("b", [&] { ++started; }));
  EXPECT_EQ(started, 2);
  EXPECT_EQ(queue.busy(), 2u);
}

TEST(ConversationQueue, AFullQueueRefusesAndDropsTheTurn) {
  ConversationQueue queue(2);
  int started = 0;
  EXPECT_TRUE(queue.enter("a", [&] { ++started; }));
  EXPECT_TRUE(queue.enter("a", [&] { ++started; }));
  EXPECT_TRUE(queue.enter("a", [&] { ++started; }));
  EXPECT_FALSE(queue.enter("a", [&] { ++started; }));
  for (int i = 0; i < 3; ++i)
    queue.leave("a");
  EXPECT_EQ(started, 3);
  EXPECT_EQ(queue.busy(), 0u);
}

TEST(ConversationQueue, ATurnThatEndsAsItStartsLetsTheNextOneRun) {
  ConversationQueue queue(8);
  int started = 0;
  EXPECT_TRUE(queue.enter("a", [&] { ++started; }));
  // Both wait; each ends at once when started (a refusal), calling leave() from inside.
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(queue.enter("a", [&] {
      ++started;
      queue.leave("a");
    }));
  }
  queue.leave("a");
  EXPECT_EQ(started, 3);
  EXPECT_EQ(queue.busy(), 0u);
}

}  // namespace
}  // namespace supportd::desk
