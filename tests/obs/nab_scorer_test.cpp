// NAB's scoring (bench/nab) on cases small enough to compute by hand: one file of 100 rows
// with one window on rows 40..49 (width 10); the first 15 rows are probationary.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nab/nab_corpus.h"
#include "nab/nab_scorer.h"
#include "scratch_files.h"

namespace supportd::bench::nab {
namespace {

const CostMatrix kStandard{1.0, 0.11, 1.0};
const CostMatrix kLowFalseNegatives{1.0, 0.11, 2.0};

// 2 sigmoid(-5x) - 1 by hand: x = -1 -> 0.986614, x = -0.1 -> 0.244919.
constexpr double kMaxTruePositive = 0.9866142981514303;

ScoredFile one_window_file(std::vector<std::pair<std::size_t, double>> detections) {
  ScoredFile file{"family/a.csv", std::vector<double>(100, 0.0), {{40, 49}}};
  for (const auto& [row, score] : detections)
    file.anomaly_scores[row] = score;
  return file;
}

TEST(NabScorer, ScaledSigmoidAndProbation) {
  EXPECT_NEAR(scaled_sigmoid(-1.0), kMaxTruePositive, 1e-12);
  EXPECT_NEAR(scaled_sigmoid(-0.1), 0.2449186624037092, 1e-12);
  EXPECT_EQ(scaled_sigmoid(0.0), 0.0);
  EXPECT_EQ(scaled_sigmoid(3.5), -1.0);  // far past a window
  EXPECT_EQ(probationary_rows(100), 15u);
  EXPECT_EQ(probationary_rows(1000), 150u);
  EXPECT_EQ(probationary_rows(10000), 750u);  // at most 750
}

TEST(NabScorer, WorthOfADetectionDependsOnWhereItIs) {
  const auto rows = row_worth(one_window_file({}), kStandard, 0);
  EXPECT_FALSE(rows[14].scored);  // probationary
  EXPECT_TRUE(rows[15].scored);
  EXPECT_NEAR(rows[40].worth, 1.0, 1e-12);  // the window's first row: a full true positive
  EXPECT_NEAR(rows[49].worth, 0.2449186624037092 / kMaxTruePositive, 1e-12);  // its last
  EXPECT_EQ(rows[45].window, 0);
  EXPECT_EQ(rows[20].window, -1);
  EXPECT_NEAR(rows[20].worth, -0.11, 1e-12);  // before any window: a full false positive
  // 10 rows past the window's end: 2 sigmoid(-5 * 10/9) - 1 = -0.992293, times 0.11.
  EXPECT_NEAR(rows[59].worth, (2.0 / (1.0 + std::exp(50.0 / 9.0)) - 1.0) * 0.11, 1e-12);
  EXPECT_NEAR(rows[59].worth, -0.109152, 1e-6);
  EXPECT_NEAR(rows[50].worth, 2.0 / (1.0 + std::exp(5.0 / 9.0)) * 0.11 - 0.11, 1e-12);
}

TEST(NabScorer, SweepsTheThresholdFromTheTop) {
  // 0.99 on a probationary row (ignored), 0.95 21 rows after the window (a false positive),
  // 0.9 on the window's first row, 0.8 before the window (a false positive).
  const auto rows =
      row_worth(one_window_file({{10, 0.99}, {70, 0.95}, {40, 0.9}, {20, 0.8}}), kStandard, 0);
  const auto outcomes = sweep(rows, kStandard);
  ASSERT_GE(outcomes.size(), 4u);
  const double far_false_positive = (2.0 / (1.0 + std::exp(5.0 * 21.0 / 9.0)) - 1.0) * 0.11;
  EXPECT_EQ(outcomes[0].threshold, 1.1);
  EXPECT_NEAR(outcomes[0].score, -1.0, 1e-12);  // nothing detected: the window is missed
  EXPECT_EQ(outcomes[1].threshold, 0.95);
  EXPECT_NEAR(outcomes[1].score, -1.0 + far_false_positive, 1e-12);
  EXPECT_EQ(outcomes[2].threshold, 0.9);
  EXPECT_NEAR(outcomes[2].score, 1.0 + far_false_positive, 1e-12);
  EXPECT_EQ(outcomes[3].threshold, 0.8);
  EXPECT_NEAR(outcomes[3].score, 1.0 + far_false_positive - 0.11, 1e-12);
  EXPECT_EQ(outcomes[3].false_positives, 2u);
  EXPECT_EQ(outcomes[3].true_positives, 1u);

  const auto best = best_threshold(rows, kStandard);
  EXPECT_EQ(best.threshold, 0.9);
  EXPECT_EQ(best.windows_detected, 1u);
  const auto fixed = at_threshold(rows, kStandard, 0.95);
  EXPECT_NEAR(fixed.score, -1.0 + far_false_positive, 1e-12);
}

TEST(NabScorer, NormalisesBetweenTheNullAndThePerfectDetector) {
  const auto corpus =
      score_corpus({one_window_file({{70, 0.95}, {40, 0.9}, {20, 0.8}})}, kStandard);
  const double far_false_positive = (2.0 / (1.0 + std::exp(5.0 * 21.0 / 9.0)) - 1.0) * 0.11;
  EXPECT_EQ(corpus.null_raw, -1.0);
  EXPECT_EQ(corpus.perfect_raw, 1.0);
  EXPECT_NEAR(corpus.normalised_score, 100.0 * (1.0 + far_false_positive + 1.0) / 2.0, 1e-9);
  EXPECT_NEAR(corpus.normalised_score, 94.5, 1e-3);
  ASSERT_EQ(corpus.per_file.size(), 1u);
  EXPECT_NEAR(corpus.per_file[0].score, corpus.best.score, 1e-12);

  const auto perfect = score_corpus({one_window_file({{40, 1.0}})}, kStandard);
  EXPECT_NEAR(perfect.normalised_score, 100.0, 1e-9);
  const auto null = score_corpus(
      {ScoredFile{"family/a.csv", std::vector<double>(100, 0.5), {{40, 49}}}}, kStandard);
  EXPECT_NEAR(null.normalised_score, 0.0, 1e-9);
}

TEST(NabScorer, WeighsMissesByTheProfile) {
  // Only the window's last row detected: worth 0.248242; the null detector scores -2.
  const auto corpus = score_corpus({one_window_file({{49, 1.0}})}, kLowFalseNegatives);
  EXPECT_EQ(corpus.null_raw, -2.0);
  EXPECT_NEAR(corpus.best.score, 0.2449186624037092 / kMaxTruePositive, 1e-12);
  EXPECT_NEAR(corpus.normalised_score, 100.0 * (0.248242 + 2.0) / 3.0, 1e-3);
}

TEST(NabScorer, CountsEachWindowOnceAcrossFiles) {
  ScoredFile a = one_window_file({{40, 1.0}, {41, 1.0}, {45, 1.0}});
  ScoredFile b = one_window_file({{40, 1.0}});
  b.name = "family/b.csv";
  const auto corpus = score_corpus({a, b}, kStandard);
  EXPECT_NEAR(corpus.best.score, 2.0, 1e-12);  // the best detection of each window counts
  EXPECT_EQ(corpus.best.windows, 2u);
  EXPECT_EQ(corpus.best.true_positives, 4u);
  EXPECT_NEAR(corpus.normalised_score, 100.0, 1e-9);
  const auto family = score_subset({b}, kStandard, corpus.best.threshold);
  EXPECT_NEAR(family.normalised_score, 100.0, 1e-9);
}

TEST(NabCorpus, MatchesWindowsToRowsByTimestamp) {
  obs::testing::ScratchFiles files;
  const auto windows = files.write(
      "windows.json",
      R"({"fam/b.csv": [], "fam/a.csv": [["2020-01-01 00:00:02.000000", "2020-01-01 00:00:03"]]})");
  files.write(
      "scores/fam/det_a.csv",
      "timestamp,value,anomaly_score\n2020-01-01 00:00:00,5,0.1\n2020-01-01 00:00:01,5,0.2\n"
      "2020-01-01 00:00:02,5,0.3\n2020-01-01 00:00:03,5,0.4\n2020-01-01 00:00:04,5,0.5\n");
  files.write("scores/fam/det_b.csv", "timestamp,anomaly_score\n2020-01-01 00:00:00,0\n");
  auto corpus = read_corpus(windows, {files.path("scores"), "det_", "anomaly_score"});
  ASSERT_TRUE(corpus) << corpus.error().message;
  ASSERT_EQ(corpus->size(), 2u);
  EXPECT_EQ((*corpus)[0].name, "fam/a.csv");  // sorted by name
  ASSERT_EQ((*corpus)[0].windows.size(), 1u);
  EXPECT_EQ((*corpus)[0].windows[0].first, 2u);
  EXPECT_EQ((*corpus)[0].windows[0].last, 3u);
  EXPECT_EQ((*corpus)[0].anomaly_scores[4], 0.5);
  EXPECT_EQ(family_of((*corpus)[1].name), "fam");

  const auto off_grid = files.write(
      "off.json", R"({"fam/a.csv": [["2020-01-01 00:00:02.500000", "2020-01-01 00:00:03"]]})");
  auto bad = read_corpus(off_grid, {files.path("scores"), "det_", "anomaly_score"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("fam/a.csv: the window edge 2020-01-01 00:00:02.500000 is "
                                     "no row's timestamp"),
            std::string::npos);
}

TEST(NabCorpus, ReadsTheProfiles) {
  obs::testing::ScratchFiles files;
  const auto path = files.write(
      "profiles.json",
      R"({"standard": {"CostMatrix": {"tpWeight": 1.0, "fnWeight": 1.0, "fpWeight": 0.11, "tnWeight": 1.0}},
          "reward_low_FN_rate": {"CostMatrix": {"tpWeight": 1, "fnWeight": 2, "fpWeight": 0.11}}})");
  auto profiles = read_profiles(path);
  ASSERT_TRUE(profiles) << profiles.error().message;
  EXPECT_EQ(profiles->at("standard").false_positive, 0.11);
  EXPECT_EQ(profiles->at("reward_low_FN_rate").false_negative, 2.0);
  const auto broken =
      files.write("broken.json", R"({"standard": {"CostMatrix": {"tpWeight": 1}}})");
  EXPECT_FALSE(read_profiles(broken));
}

}  // namespace
}  // namespace supportd::bench::nab
