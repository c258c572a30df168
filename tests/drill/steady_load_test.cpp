// The drill's percentiles over its load's samples: nearest rank, only the class asked, only
// answered requests (200) sent in the window, and nothing with too few samples.
#include "drill/steady_load.h"

#include <gtest/gtest.h>

namespace supportd::drill {
namespace {

using std::chrono::milliseconds;

TEST(DrillPercentile, NearestRankOverTheClassAnsweredInTheWindow) {
  const auto t0 = Clock::now();
  std::vector<LoadSample> samples;
  for (int i = 1; i <= 100; ++i)
    samples.push_back({"normal", t0 + milliseconds(i), t0 + milliseconds(i + 10 * i), 200});
  samples.push_back({"low", t0 + milliseconds(5), t0 + milliseconds(99999), 200});
  samples.push_back({"normal", t0 + milliseconds(6), t0 + milliseconds(88888), 503});
  samples.push_back({"normal", t0 + milliseconds(500), t0 + milliseconds(77777), 200});

  const auto p99 = percentile_seconds(samples, "normal", t0, t0 + milliseconds(101), 99, 10);
  ASSERT_TRUE(p99);
  EXPECT_DOUBLE_EQ(*p99, 0.99);  // the 99th of 100 latencies 0.01 .. 1.00 s
  const auto p50 = percentile_seconds(samples, "normal", t0, t0 + milliseconds(101), 50, 10);
  EXPECT_DOUBLE_EQ(*p50, 0.5);
  EXPECT_FALSE(percentile_seconds(samples, "low", t0, t0 + milliseconds(101), 99, 10));
  EXPECT_FALSE(
      percentile_seconds(samples, "normal", t0 + milliseconds(50), t0 + milliseconds(55), 99, 10));
}

}  // namespace
}  // namespace supportd::drill
