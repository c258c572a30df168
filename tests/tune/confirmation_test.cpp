// The tuner's decision rule over synthetic repeat figures (no processes): a candidate beats the
// defaults only when every run was measured, over enough rounds for the candidates compared, and
// its worst run clears the defaults' best by the minimum gain. Each case below sits just on the
// wrong side of one of those conditions, so that loosening any of them (a mean instead of the
// worst run, no margin, fewer rounds, failed runs ignored) fails a test.
#include <gtest/gtest.h>

#include "tune/confirmation.h"

namespace supportd::tune {
namespace {

NoiseRule rule(int compared = 1, double min_gain = 0.03) {
  NoiseRule r;
  r.compared = compared;
  r.min_gain = min_gain;
  return r;
}

TEST(RoundsNeeded, TheFewestRoundsThatKeepAFalseAlarmAtFivePercent) {
  EXPECT_EQ(rounds_needed(rule(1)), 3);  // 1 / C(6,3) = 1/20
  EXPECT_EQ(rounds_needed(rule(2)), 4);  // 2 / 20 is too many; 2 / C(8,4) = 2/70
  EXPECT_EQ(rounds_needed(rule(3)), 4);  // 3/70
  EXPECT_EQ(rounds_needed(rule(4)), 5);  // 4/70 is too many; 4 / 252
  NoiseRule strict = rule(1);
  strict.false_alarm = 0.01;
  EXPECT_EQ(rounds_needed(strict), 5);  // 1/70 is too many; 1/252
}

TEST(Compare, TheWorstRunClearsTheDefaultsBestByTheMinimumGain) {
  const Runs defaults{100, 102, 98};
  const Comparison c = compare(defaults, {106, 107, 108}, rule());  // 106 > 102 x 1.03
  EXPECT_TRUE(c.beats) << c.reason;
  EXPECT_TRUE(c.reason.empty());
  ASSERT_TRUE(c.margin);
  EXPECT_DOUBLE_EQ(*c.margin, 106.0 / 102 - 1);
}

TEST(Compare, AWorstRunAboveTheDefaultsButInsideTheMarginIsNotEnough) {
  // Every run above every run of the defaults, the mean 9% up; but 105 < 102 x 1.03 = 105.06.
  const Comparison c = compare({100, 102, 98}, {105, 110, 112}, rule());
  EXPECT_FALSE(c.beats);
  EXPECT_NE(c.reason.find("did not beat the defaults' best (102.000) by 3%"), std::string::npos)
      << c.reason;
  ASSERT_TRUE(c.gain);
  EXPECT_GT(*c.gain, 0.08);
  // Without the margin the same runs would pass: the margin is what refuses them.
  EXPECT_TRUE(compare({100, 102, 98}, {105, 110, 112}, rule(1, 0)).beats);
}

TEST(Compare, ALargeMeanGainWithOneBadRunIsNotEnough) {
  const Comparison c = compare({100, 100, 100}, {200, 200, 99}, rule());
  EXPECT_FALSE(c.beats);
  EXPECT_GT(*c.gain, 0.6);
  EXPECT_LT(*c.margin, 0);
}

TEST(Compare, EqualRunsNeverBeatTheDefaults) {
  EXPECT_FALSE(compare({5, 5, 5}, {5, 5, 5}, rule(1, 0)).beats);
}

TEST(Compare, TooFewRoundsCannotTellAGainFromTheNoise) {
  const Comparison two = compare({100, 100}, {200, 200}, rule(1));
  EXPECT_FALSE(two.beats);
  EXPECT_NE(two.reason.find("at least 3"), std::string::npos) << two.reason;
  const Comparison one = compare({100}, {200}, rule(1));
  EXPECT_FALSE(one.beats);
  EXPECT_NE(one.reason.find("1 run each"), std::string::npos) << one.reason;
  // Two candidates against the same defaults need a fourth round.
  EXPECT_FALSE(compare({100, 100, 100}, {200, 200, 200}, rule(2)).beats);
  EXPECT_TRUE(compare({100, 100, 100, 100}, {200, 200, 200, 200}, rule(2)).beats);
}

TEST(Compare, AFailedRunOfEitherBlocks) {
  const Comparison candidate_failed = compare({100, 100, 100}, {200, std::nullopt, 200}, rule());
  EXPECT_FALSE(candidate_failed.beats);
  EXPECT_NE(candidate_failed.reason.find("1 of its runs and 0 of the defaults'"), std::string::npos)
      << candidate_failed.reason;
  EXPECT_FALSE(compare({100, std::nullopt, 100}, {200, 200, 200}, rule()).beats);
  // The measured runs still give the gain.
  EXPECT_DOUBLE_EQ(*candidate_failed.gain, 1.0);
}

TEST(Compare, TheGainAndItsSpreadOverTheRounds) {
  // Round by round: 120/100, 121/110, 117/90, 130/100.
  const Comparison c = compare({100, 110, 90, 100}, {120, 121, 117, 130}, rule());
  EXPECT_TRUE(c.beats) << c.reason;  // 117 > 110 x 1.03 = 113.3
  EXPECT_DOUBLE_EQ(*c.gain, 122.0 / 100 - 1);
  EXPECT_DOUBLE_EQ(*c.gain_low, 121.0 / 110 - 1);
  EXPECT_DOUBLE_EQ(*c.gain_high, 0.3);
  EXPECT_DOUBLE_EQ(*c.margin, 117.0 / 110 - 1);
}

TEST(Compare, DefaultsWithNoGoodputAreBeatenByAnyMeasuredGoodput) {
  const Comparison c = compare({0, 0, 0}, {1, 2, 1}, rule());
  EXPECT_TRUE(c.beats) << c.reason;
  EXPECT_FALSE(c.gain);  // no ratio to 0
  EXPECT_FALSE(c.margin);
  EXPECT_FALSE(c.gain_low);
  EXPECT_FALSE(compare({0, 0, 0}, {1, 0, 1}, rule()).beats);
}

}  // namespace
}  // namespace supportd::tune
