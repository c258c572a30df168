// The detector as the server and `anomaly score` use it: one value at a time, a score that
// never depends on a later value, the same scores for the same seed, an injected spike found
// at its onset, and parameters set by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "obs/anomaly/detector.h"
#include "series.h"

namespace supportd::obs::anomaly {
namespace {

// Smaller than the defaults, so the tests run quickly; the same code paths.
DetectorOptions test_options(std::size_t seed = 1) {
  DetectorOptions options;
  options.forest.trees = 40;
  options.forest.sample_size = 256;
  options.forest.window = 2000;
  options.seed = seed;
  return options;
}

std::vector<AnomalyReading> run(const std::vector<double>& values, const DetectorOptions& o) {
  AnomalyDetector detector(o);
  std::vector<AnomalyReading> readings;
  for (double value : values)
    readings.push_back(detector.update(value));
  return readings;
}

TEST(AnomalyDetector, FindsAnInjectedSpikeAtItsOnset) {
  std::vector<double> values = testing::wave(3000, 1);
  values[2500] = 30;  // the wave stays within 6..14
  const auto readings = run(values, test_options());
  double highest_elsewhere = 0;
  for (std::size_t t = 500; t < readings.size(); ++t) {
    if (t != 2500) highest_elsewhere = std::max(highest_elsewhere, readings[t].score);
  }
  EXPECT_TRUE(readings[2500].onset);
  EXPECT_GT(readings[2500].score, 0.8);
  EXPECT_GT(readings[2500].score, highest_elsewhere + 0.05);
}

TEST(AnomalyDetector, ReportsALastingShiftOnceThenDampsIt) {
  std::vector<double> values = testing::wave(3000, 2);
  for (std::size_t t = 2500; t < 2600; ++t)
    values[t] += 15;
  const auto readings = run(values, test_options());
  EXPECT_GT(readings[2500].score, 0.8);
  EXPECT_TRUE(readings[2500].onset);
  std::size_t onsets = 0;
  for (std::size_t t = 2501; t < 2600; ++t) {
    onsets += readings[t].onset ? 1 : 0;
    if (!readings[t].onset) {
      EXPECT_LT(readings[t].score, readings[t].level) << t;
    }
  }
  EXPECT_LT(onsets, 10u);  // mostly damped: it is the same anomaly going on
}

TEST(AnomalyDetector, ScoresAPrefixAsItScoresTheWhole) {
  // Streaming: the score of a value depends on it and the values before it only.
  std::vector<double> values = testing::wave(2500, 3);
  values[1800] = -20;
  const auto whole = run(values, test_options());
  const std::vector<double> prefix(values.begin(), values.begin() + 1900);
  const auto part = run(prefix, test_options());
  ASSERT_EQ(part.size(), 1900u);
  for (std::size_t t = 0; t < part.size(); ++t) {
    ASSERT_EQ(part[t].score, whole[t].score) << t;
    ASSERT_EQ(part[t].level, whole[t].level) << t;
  }
}

TEST(AnomalyDetector, IsDeterministicForASeed) {
  const std::vector<double> values = testing::wave(1500, 4);
  const auto first = run(values, test_options(11));
  const auto again = run(values, test_options(11));
  const auto other = run(values, test_options(12));
  std::size_t differ = 0;
  for (std::size_t t = 0; t < values.size(); ++t) {
    ASSERT_EQ(first[t].score, again[t].score) << t;
    differ += first[t].score != other[t].score ? 1 : 0;
  }
  EXPECT_GT(differ, 1000u);  // another seed, other trees
}

TEST(AnomalyDetector, ScoresStayWithinZeroAndOne) {
  std::vector<double> values = testing::wave(2000, 5, 2.0);
  values[1000] = 1e12;
  values[1500] = -1e12;
  for (const auto& reading : run(values, test_options())) {
    EXPECT_GE(reading.score, 0.0);
    EXPECT_LE(reading.score, 1.0);
    EXPECT_LE(reading.score, reading.level);
  }
}

TEST(AnomalyDetector, LearnsBeforeJudging) {
  const auto readings = run(testing::wave(200, 6), test_options());
  EXPECT_TRUE(readings[0].learning);
  EXPECT_EQ(readings[0].score, 0.0);
  EXPECT_FALSE(readings[199].learning);
}

TEST(AnomalyDetector, SkipsValuesThatAreNotNumbers) {
  const std::vector<double> values = testing::wave(1200, 7);
  std::vector<double> with_gaps = values;
  with_gaps.insert(with_gaps.begin() + 1000, std::numeric_limits<double>::quiet_NaN());
  with_gaps.insert(with_gaps.begin() + 600, std::numeric_limits<double>::infinity());
  const auto clean = run(values, test_options());
  const auto gapped = run(with_gaps, test_options());
  EXPECT_EQ(gapped[600].score, gapped[599].score);     // the previous reading again
  EXPECT_EQ(gapped.back().score, clean.back().score);  // and nothing learnt from it
}

TEST(AnomalyDetector, UsesTheAnomalyLikelihoodWhenAsked) {
  DetectorOptions options = test_options();
  options.likelihood_on = true;
  options.likelihood.min_history = 50;
  std::vector<double> values = testing::wave(1500, 8);
  for (std::size_t t = 1400; t < 1420; ++t)
    values[t] += 20;
  const auto readings = run(values, options);
  EXPECT_TRUE(readings[100].learning);  // the likelihood needs its own history first
  EXPECT_FALSE(readings[1000].learning);
  double highest = 0;
  for (std::size_t t = 1400; t < 1420; ++t)
    highest = std::max(highest, readings[t].score);
  EXPECT_GT(highest, 0.5);  // a tail probability under 1e-5
}

TEST(DetectorOptions, AreSetByName) {
  DetectorOptions options;
  ASSERT_TRUE(set_option(options, "trees", "25"));
  EXPECT_EQ(options.forest.trees, 25u);
  ASSERT_TRUE(set_option(options, "onset-damping", "0.25"));
  EXPECT_EQ(options.onset.damping, 0.25);
  ASSERT_TRUE(set_option(options, "likelihood", "1"));
  EXPECT_TRUE(options.likelihood_on);

  const auto unknown = set_option(options, "tress", "25");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown detector parameter \"tress\""),
            std::string::npos);
  EXPECT_FALSE(set_option(options, "trees", "0"));     // out of range
  EXPECT_FALSE(set_option(options, "trees", "2.5"));   // not whole
  EXPECT_FALSE(set_option(options, "trees", "many"));  // not a number
  EXPECT_FALSE(set_option(options, "onset-damping", "2"));
  EXPECT_EQ(options.forest.trees, 25u);  // failures change nothing
}

TEST(DetectorOptions, DescribeEveryParameterWithItsValue) {
  DetectorOptions options;
  options.onset.window = 123;
  const auto list = describe_options(options);
  const auto onset = std::find_if(list.begin(), list.end(),
                                  [](const OptionInfo& o) { return o.name == "onset-window"; });
  ASSERT_NE(onset, list.end());
  EXPECT_EQ(onset->value, "123");
  for (const auto& option : list) {
    DetectorOptions copy;
    EXPECT_TRUE(set_option(copy, option.name, option.value)) << option.name;
    EXPECT_FALSE(option.help.empty()) << option.name;
  }
}

}  // namespace
}  // namespace supportd::obs::anomaly
