// Time and departures by the number of requests in service, swept from service intervals:
// overlaps, intervals cut by the span, and an end at the same instant as a start.
#include "obs/busy_levels.h"

#include <gtest/gtest.h>

namespace supportd::obs {
namespace {

TEST(BusyLevels, CountsTimeAndDeparturesAtEachLevel) {
  const auto levels = busy_levels({{0, 4}, {1, 3}}, 0, 5);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_DOUBLE_EQ(levels[0].seconds, 2);  // [0, 1) and [3, 4)
  EXPECT_DOUBLE_EQ(levels[1].seconds, 2);  // [1, 3)
  EXPECT_EQ(levels[0].departures, 1u);     // at 4, alone
  EXPECT_EQ(levels[1].departures, 1u);     // at 3, with the other still in
}

TEST(BusyLevels, CountsOnlyWhatIsInsideTheSpan) {
  // In service since before the span: counted from its start. Ended before it: not at all.
  // Ending after it: the time inside, no departure.
  const auto levels = busy_levels({{-2, 1}, {-5, -3}, {1.5, 9}}, 0, 2);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_DOUBLE_EQ(levels[0].seconds, 1.5);  // [0, 1) and [1.5, 2)
  EXPECT_EQ(levels[0].departures, 1u);
}

TEST(BusyLevels, AnEndAtTheInstantOfAStartIsTakenFirst) {
  const auto levels = busy_levels({{0, 1}, {1, 2}}, 0, 2);
  ASSERT_EQ(levels.size(), 1u);  // never two at once
  EXPECT_DOUBLE_EQ(levels[0].seconds, 2);
  EXPECT_EQ(levels[0].departures, 2u);
  EXPECT_TRUE(busy_levels({}, 0, 10).empty());
}

}  // namespace
}  // namespace supportd::obs
