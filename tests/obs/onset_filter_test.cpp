// The onset filter: full value only for a score above every score of the last N.
#include <gtest/gtest.h>

#include "obs/anomaly/onset_filter.h"

namespace supportd::obs::anomaly {
namespace {

TEST(OnsetFilter, DampsScoresThatDoNotBeatTheWindow) {
  OnsetFilter filter({3, 0.5});
  EXPECT_EQ(filter.filter(0.6), 0.6);   // nothing before it
  EXPECT_EQ(filter.filter(0.8), 0.8);   // window 0.6
  EXPECT_EQ(filter.filter(0.7), 0.35);  // window 0.6 0.8
  EXPECT_FALSE(filter.last_was_onset());
  EXPECT_EQ(filter.filter(0.8), 0.4);      // window 0.6 0.8 0.7: equal is not above
  EXPECT_EQ(filter.filter(0.75), 0.375);   // window 0.8 0.7 0.8
  EXPECT_EQ(filter.filter(0.79), 0.395);   // window 0.7 0.8 0.75
  EXPECT_EQ(filter.filter(0.77), 0.385);   // window 0.8 0.75 0.79
  EXPECT_EQ(filter.filter(0.795), 0.795);  // window 0.75 0.79 0.77: both 0.8s have left
  EXPECT_TRUE(filter.last_was_onset());
}

TEST(OnsetFilter, RemembersDampedScoresUndamped) {
  OnsetFilter filter({2, 0.1});
  filter.filter(0.9);
  EXPECT_NEAR(filter.filter(0.85), 0.085, 1e-12);
  EXPECT_NEAR(filter.filter(0.86), 0.086, 1e-12);  // compared with 0.9 and 0.85, not 0.085
  EXPECT_EQ(filter.filter(0.87), 0.87);            // 0.85 0.86
}

TEST(OnsetFilter, OffKeepsEveryScore) {
  OnsetFilter filter({0, 0.5});
  for (double score : {0.9, 0.1, 0.9, 0.5})
    EXPECT_EQ(filter.filter(score), score);
}

}  // namespace
}  // namespace supportd::obs::anomaly
