// Stop strings in streamed text: cut before a stop, a possible stop held across pieces and
// released when it is not one, the earliest of several stops wins.
#include "engine/stop_matcher.h"

#include <gtest/gtest.h>

namespace supportd::engine {
namespace {

TEST(StopMatcher, PassesTextThroughWithoutStops) {
  StopMatcher m({});
  EXPECT_EQ(m.push("hello"), "hello");
  EXPECT_FALSE(m.stopped());
}

TEST(StopMatcher, CutsBeforeAStopInOnePiece) {
  StopMatcher m({"END"});
  EXPECT_EQ(m.push("abcENDdef"), "abc");
  EXPECT_TRUE(m.stopped());
  EXPECT_EQ(m.push("more"), "");
}

TEST(StopMatcher, HoldsAPossibleStopAcrossPieces) {
  StopMatcher m({"</answer>"});
  EXPECT_EQ(m.push("yes </ans"), "yes ");
  EXPECT_EQ(m.push("wer> tail"), "");
  EXPECT_TRUE(m.stopped());
}

TEST(StopMatcher, ReleasesHeldTextWhenItIsNotAStop) {
  StopMatcher m({"STOP"});
  EXPECT_EQ(m.push("ST"), "");
  EXPECT_EQ(m.push("AR"), "STAR");
  EXPECT_EQ(m.push("S"), "");
  EXPECT_EQ(m.flush(), "S");
}

TEST(StopMatcher, EarliestOfSeveralStopsWins) {
  StopMatcher m({"bb", "a"});
  EXPECT_EQ(m.push("xxbbya"), "xx");
}

}  // namespace
}  // namespace supportd::engine
