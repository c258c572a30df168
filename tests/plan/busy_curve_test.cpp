// One engine's service curve from measured busy levels: measured rates kept, gaps interpolated,
// the levels below the lowest scaled down, those above the highest held at its total.
#include "plan/busy_curve.h"

#include <gtest/gtest.h>

namespace supportd::plan {
namespace {

TEST(BusyCurve, KeepsMeasuredLevelsAndFillsTheOthersConservatively) {
  const MeasuredLevel levels[] = {{0, 0}, {10, 40}, {1, 3}, {0, 0}, {20, 120}};
  const auto curve = busy_curve(levels, 6);
  ASSERT_TRUE(curve);
  EXPECT_EQ(curve->measured, (std::vector<int>{2, 5}));
  ASSERT_EQ(curve->rates.size(), 6u);
  EXPECT_DOUBLE_EQ(curve->rates[0], 2.0);  // one request as fast as each of two: 4 / 2
  EXPECT_DOUBLE_EQ(curve->rates[1], 4.0);
  EXPECT_DOUBLE_EQ(curve->rates[2], 14.0 / 3);  // 4 -> 6 over three steps
  EXPECT_DOUBLE_EQ(curve->rates[3], 16.0 / 3);
  EXPECT_DOUBLE_EQ(curve->rates[4], 6.0);
  EXPECT_DOUBLE_EQ(curve->rates[5], 6.0);  // held: no gain assumed past what was seen
  EXPECT_EQ(describe_measured(*curve), "k = 2, 5 measured");
}

TEST(BusyCurve, LevelsBeyondTheSlotsOrSeenTooBrieflyDoNotCount) {
  const MeasuredLevel brief[] = {{kMinLevelSeconds / 2, 50}, {30, kMinLevelDepartures - 1}};
  EXPECT_FALSE(busy_curve(brief, 2));
  const MeasuredLevel beyond[] = {{0, 0}, {0, 0}, {30, 90}};
  EXPECT_FALSE(busy_curve(beyond, 2));
  const auto one = busy_curve(beyond, 3);
  ASSERT_TRUE(one);
  EXPECT_DOUBLE_EQ(one->rates[0], 1.0);
  EXPECT_DOUBLE_EQ(one->rates[2], 3.0);
}

}  // namespace
}  // namespace supportd::plan
