// A shadow's answer against production's, without a model: the same text agrees exactly and
// wholly; words in another order or spacing overlap wholly but not exactly; repeated words
// count as often as they occur on both sides; nothing in common overlaps 0; two empty answers
// agree.
#include <gtest/gtest.h>

#include "engine/router/agreement.h"

namespace supportd::engine::router {
namespace {

TEST(Agreement, TheSameTextAgreesExactlyAndWholly) {
  const Agreement same = compare_answers("Your parcel ships today.", "Your parcel ships today.");
  EXPECT_TRUE(same.exact);
  EXPECT_DOUBLE_EQ(same.overlap, 1.0);
}

TEST(Agreement, WordsInAnotherOrderOrSpacingOverlapWhollyButNotExactly) {
  const Agreement reordered = compare_answers("ships today parcel", "parcel  ships\ntoday");
  EXPECT_FALSE(reordered.exact);
  EXPECT_DOUBLE_EQ(reordered.overlap, 1.0);
}

TEST(Agreement, OverlapIsTheF1OfTheWordMultisets) {
  // production: a a b c (4 words); shadow: a b b (3 words); common: a once, b once = 2.
  EXPECT_DOUBLE_EQ(compare_answers("a a b c", "a b b").overlap, 2.0 * 2 / 7);
  EXPECT_DOUBLE_EQ(compare_answers("refund sent", "no idea").overlap, 0.0);
  EXPECT_DOUBLE_EQ(compare_answers("refund", "").overlap, 0.0);
}

TEST(Agreement, TwoEmptyAnswersAgree) {
  const Agreement empty = compare_answers("", " \n");
  EXPECT_FALSE(empty.exact);
  EXPECT_DOUBLE_EQ(empty.overlap, 1.0);
  EXPECT_TRUE(compare_answers("", "").exact);
}

}  // namespace
}  // namespace supportd::engine::router
