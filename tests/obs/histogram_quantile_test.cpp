// Quantiles from histogram buckets: interpolated inside the bucket that holds the rank, 0 for an
// empty histogram, the highest finite bound for ranks beyond it.
#include "obs/histogram_quantile.h"

#include <gtest/gtest.h>

namespace supportd::obs {
namespace {

TEST(HistogramQuantile, InterpolatesInsideTheBucketHoldingTheRank) {
  Histogram h({1, 2, 4});
  for (double v : {0.5, 1.5, 1.5, 3.0})
    h.observe(v);
  const auto s = h.snapshot();
  EXPECT_DOUBLE_EQ(histogram_quantile(s, 0.25), 1.0);   // rank 1: the end of the first bucket
  EXPECT_DOUBLE_EQ(histogram_quantile(s, 0.5), 1.5);    // rank 2: half-way through (1, 2]
  EXPECT_DOUBLE_EQ(histogram_quantile(s, 0.875), 3.0);  // rank 3.5: half-way through (2, 4]
  EXPECT_DOUBLE_EQ(histogram_quantile(s, 1.0), 4.0);
}

TEST(HistogramQuantile, EmptyIsZeroAndBeyondTheBoundsIsTheLastBound) {
  Histogram h({0.1, 1});
  EXPECT_EQ(histogram_quantile(h.snapshot(), 0.5), 0);
  h.observe(50);
  EXPECT_DOUBLE_EQ(histogram_quantile(h.snapshot(), 0.99), 1.0);
}

}  // namespace
}  // namespace supportd::obs
