// The open-set measures on hand-made outcomes: Zhang et al.'s in-scope accuracy, OOS recall and
// OOS precision, and the coverage–accuracy table.
#include "kb/eval/open_set.h"

#include <gtest/gtest.h>

namespace supportd::kb {
namespace {

ScoredQuestion in_scope(bool right, bool confident, double confidence) {
  return {true, right, confident, confidence};
}
ScoredQuestion out_of_scope(bool confident, double confidence) {
  return {false, false, confident, confidence};
}

TEST(OpenSet, NothingOutOfScopeMeansNoScores) {
  EXPECT_FALSE(open_set_scores({in_scope(true, true, 0.9), in_scope(false, false, 0.2)}));
}

TEST(OpenSet, ScoresFollowTheDefinitions) {
  const std::vector<ScoredQuestion> questions = {
      in_scope(true, true, 0.9),   // answered, right
      in_scope(false, true, 0.8),  // answered, wrong: not accurate
      in_scope(true, false, 0.3),  // right entry first but declined: not accurate
      in_scope(true, true, 0.7),   // answered, right
      out_of_scope(false, 0.2),    // declined: recalled
      out_of_scope(true, 0.85),    // answered: missed
      out_of_scope(false, 0.0),    // declined: recalled
  };
  const auto scores = open_set_scores(questions);
  ASSERT_TRUE(scores);
  EXPECT_EQ(scores->in_scope, 4);
  EXPECT_EQ(scores->out_of_scope, 3);
  EXPECT_DOUBLE_EQ(scores->in_scope_accuracy, 2.0 / 4);
  EXPECT_DOUBLE_EQ(scores->oos_recall, 2.0 / 3);
  // Declined: the third in-scope question and two out-of-scope ones.
  EXPECT_DOUBLE_EQ(scores->oos_precision, 2.0 / 3);
}

TEST(OpenSet, NothingDeclinedHasZeroPrecision) {
  const auto scores = open_set_scores({in_scope(true, true, 0.9), out_of_scope(true, 0.9)});
  ASSERT_TRUE(scores);
  EXPECT_DOUBLE_EQ(scores->oos_recall, 0);
  EXPECT_DOUBLE_EQ(scores->oos_precision, 0);
}

TEST(OpenSet, CoverageTableAnswersAtOrAboveEachThreshold) {
  const std::vector<ScoredQuestion> questions = {
      in_scope(true, true, 0.95), in_scope(true, true, 0.75), in_scope(false, false, 0.45),
      out_of_scope(false, 0.35),  out_of_scope(false, 0.0),
  };
  const auto table = coverage_table(questions, 0.62);
  // 0, 0.1, ..., 0.9, 0.95, 0.99 and the knowledge base's own 0.62, in order.
  ASSERT_EQ(table.size(), 13u);
  for (std::size_t i = 1; i < table.size(); ++i) {
    EXPECT_LT(table[i - 1].threshold, table[i].threshold);
    EXPECT_GE(table[i - 1].answered, table[i].answered);
  }
  const auto at = [&](double threshold) {
    for (const CoveragePoint& point : table) {
      if (std::abs(point.threshold - threshold) < 1e-9) return point;
    }
    ADD_FAILURE() << "no row for " << threshold;
    return CoveragePoint{};
  };
  // At 0 everything with a confidence is answered; the question at 0 never is.
  EXPECT_DOUBLE_EQ(at(0).answered, 4.0 / 5);
  EXPECT_DOUBLE_EQ(at(0).accuracy, 2.0 / 4);
  EXPECT_DOUBLE_EQ(at(0).oos_recall, 1.0 / 2);
  EXPECT_DOUBLE_EQ(at(0.4).answered, 3.0 / 5);
  EXPECT_DOUBLE_EQ(at(0.4).accuracy, 2.0 / 3);
  EXPECT_DOUBLE_EQ(at(0.4).oos_recall, 1.0);
  EXPECT_DOUBLE_EQ(at(0.62).answered, 2.0 / 5);
  EXPECT_DOUBLE_EQ(at(0.62).accuracy, 1.0);
  EXPECT_DOUBLE_EQ(at(0.62).in_scope_accuracy, 2.0 / 3);
  EXPECT_DOUBLE_EQ(at(0.95).answered, 1.0 / 5);
  EXPECT_DOUBLE_EQ(at(0.99).answered, 0);
  EXPECT_DOUBLE_EQ(at(0.99).accuracy, 0);
  EXPECT_DOUBLE_EQ(at(0.99).in_scope_accuracy, 0);
}

TEST(OpenSet, OwnThresholdOnTheGridIsNotRepeated) {
  EXPECT_EQ(coverage_table({in_scope(true, true, 0.5)}, 0.5).size(), 12u);
}

}  // namespace
}  // namespace supportd::kb
