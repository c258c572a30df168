// The isolation forest: an injected outlier is isolated, farther is more anomalous, scoring
// does not learn, the window slides (a new normal becomes normal), and seeds decide the trees.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "obs/anomaly/isolation_tree.h"
#include "obs/anomaly/streaming_forest.h"
#include "series.h"

namespace supportd::obs::anomaly {
namespace {

using testing::normal;

ForestOptions small_forest() {
  ForestOptions options;
  options.trees = 60;
  options.sample_size = 256;
  options.window = 1000;
  options.refresh_every = 5;
  return options;
}

// A forest that has learnt 800 points of a 2-D standard normal cloud.
StreamingForest learnt_cloud(std::uint64_t seed, const ForestOptions& options = small_forest()) {
  StreamingForest forest(2, options, seed);
  Random random(seed + 100);
  for (int i = 0; i < 800; ++i) {
    const std::array<double, 2> point{normal(random), normal(random)};
    forest.score_and_learn(point);
  }
  return forest;
}

double score_of(const StreamingForest& forest, double x, double y) {
  const std::array<double, 2> point{x, y};
  return forest.score(point).value();
}

TEST(AveragePathLength, MatchesTheFormula) {
  EXPECT_DOUBLE_EQ(average_path_length(0), 0);
  EXPECT_DOUBLE_EQ(average_path_length(1), 0);
  EXPECT_DOUBLE_EQ(average_path_length(2), 1);
  // c(256) = 2 (ln 255 + 0.5772...) - 2 * 255 / 256
  EXPECT_NEAR(average_path_length(256), 10.2448, 1e-3);
  EXPECT_NEAR(average_path_length(100000), 2 * (std::log(99999.0) + 0.5772156649) - 2 * 0.99999,
              1e-9);
}

TEST(IsolationTree, IsolatesAnOutlierOfItsSampleSooner) {
  std::vector<double> points;
  Random random(7);
  for (int i = 0; i < 255; ++i)
    points.push_back(normal(random));
  points.push_back(40.0);  // row 255: far from the rest
  double outlier = 0, typical = 0;
  for (int tree = 0; tree < 50; ++tree) {
    std::vector<std::uint32_t> rows(256);
    for (std::uint32_t i = 0; i < 256; ++i)
      rows[i] = i;
    IsolationTree built(points, 1, rows, 8, random);
    const std::array<double, 1> far{40.0}, near{0.0};
    outlier += built.path_length(far);
    typical += built.path_length(near);
  }
  EXPECT_LT(outlier / 50, 3.0);
  EXPECT_GT(typical / 50, 6.0);
}

TEST(IsolationTree, SetsApartAnyOtherPointFromASampleOfIdenticalOnes) {
  // A constant stretch (no errors, an empty queue): no split can cut the sample, yet a
  // different value must not score as ordinary; the same value still does.
  const std::vector<double> points(2 * 64, 0.0);  // 64 points of (0, 0)
  std::vector<std::uint32_t> rows(64);
  for (std::uint32_t i = 0; i < 64; ++i)
    rows[i] = i;
  Random random(3);
  IsolationTree built(points, 2, rows, 8, random);
  const std::array<double, 2> same{0.0, 0.0}, other{1.0, 0.0}, both{1.0, 1.0};
  EXPECT_DOUBLE_EQ(built.path_length(same), average_path_length(64));
  EXPECT_NEAR(built.path_length(other), 0.5 + 0.5 * average_path_length(64), 1e-9);
  EXPECT_DOUBLE_EQ(built.path_length(both), 1.0);
}

TEST(StreamingForest, IsolatesAnInjectedOutlier) {
  const StreamingForest forest = learnt_cloud(1);
  const double outlier = score_of(forest, 6, -6);
  const double typical = score_of(forest, 0.1, -0.2);
  EXPECT_GT(outlier, 0.75);
  EXPECT_LT(typical, 0.55);
}

TEST(StreamingForest, RanksPointsBeyondTheSampleByHowFarBeyond) {
  // The original algorithm gives every point past the sample's edge the edge's path length;
  // here the farther one is isolated sooner.
  const StreamingForest forest = learnt_cloud(2);
  const double edge = score_of(forest, 4, 0);
  const double far = score_of(forest, 12, 0);
  const double farther = score_of(forest, 100, 0);
  EXPECT_LT(edge, far);
  EXPECT_LT(far, farther);
  EXPECT_LT(farther, 1.0);
}

TEST(StreamingForest, ScoringAloneDoesNotLearn) {
  StreamingForest forest = learnt_cloud(3);
  const double first = score_of(forest, 5, 5);
  for (int i = 0; i < 100; ++i)
    score_of(forest, 5, 5);
  EXPECT_EQ(score_of(forest, 5, 5), first);
}

TEST(StreamingForest, HasNoScoreBeforeItsFirstTree) {
  ForestOptions options = small_forest();
  options.min_points = 10;
  StreamingForest forest(1, options, 1);
  for (int i = 0; i < 9; ++i) {
    const std::array<double, 1> point{static_cast<double>(i)};
    EXPECT_FALSE(forest.score_and_learn(point).has_value()) << i;
  }
  const std::array<double, 1> tenth{9.0};
  EXPECT_FALSE(forest.score_and_learn(tenth).has_value());  // scored before it joins
  EXPECT_EQ(forest.tree_count(), 1u);
  EXPECT_TRUE(forest.score_and_learn(tenth).has_value());
}

TEST(StreamingForest, KeepsItsTreeCountAndWindowBounded) {
  StreamingForest forest = learnt_cloud(4);
  EXPECT_EQ(forest.tree_count(), 60u);
  EXPECT_EQ(forest.window_size(), 800u);
  Random random(9);
  for (int i = 0; i < 500; ++i) {
    const std::array<double, 2> point{normal(random), normal(random)};
    forest.score_and_learn(point);
  }
  EXPECT_EQ(forest.tree_count(), 60u);
  EXPECT_EQ(forest.window_size(), 1000u);
}

TEST(StreamingForest, ANewNormalBecomesNormalAsTheWindowSlides) {
  ForestOptions options = small_forest();
  options.window = 400;
  StreamingForest forest(2, options, 5);
  Random random(11);
  for (int i = 0; i < 800; ++i) {
    const std::array<double, 2> point{normal(random), normal(random)};
    forest.score_and_learn(point);
  }
  const double before = score_of(forest, 20, 20);
  for (int i = 0; i < 800; ++i) {  // the level moves to (20, 20) and stays
    const std::array<double, 2> point{20 + normal(random), 20 + normal(random)};
    forest.score_and_learn(point);
  }
  EXPECT_GT(before, 0.75);
  EXPECT_LT(score_of(forest, 20, 20), 0.55);
  EXPECT_GT(score_of(forest, 0, 0), 0.75);  // and the old one is forgotten
}

TEST(StreamingForest, TheSameSeedBuildsTheSameTrees) {
  const StreamingForest a = learnt_cloud(6), b = learnt_cloud(6);
  ForestOptions options = small_forest();
  StreamingForest c(2, options, 7);
  Random random(106);  // the same points as learnt_cloud(6), another seed for the trees
  for (int i = 0; i < 800; ++i) {
    const std::array<double, 2> point{normal(random), normal(random)};
    c.score_and_learn(point);
  }
  for (double x : {0.0, 1.5, 3.0, 8.0}) {
    EXPECT_EQ(score_of(a, x, -x), score_of(b, x, -x)) << x;
  }
  EXPECT_NE(score_of(a, 1.5, -1.5), score_of(c, 1.5, -1.5));
}

}  // namespace
}  // namespace supportd::obs::anomaly
