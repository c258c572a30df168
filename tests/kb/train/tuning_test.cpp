// Choices made on held-out questions: which questions are held out, fusion weights, calibration,
// and the semantic cache's threshold.
#include "kb/train/tuning.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kb/train/semantic_cache_threshold.h"

namespace supportd::kb {
namespace {

constexpr auto kBm25 = static_cast<std::size_t>(Component::kBm25);
constexpr auto kClassifier = static_cast<std::size_t>(Component::kClassifier);

Availability lexical() {
  Availability available{};
  available[kBm25] = true;
  available[static_cast<std::size_t>(Component::kBm25Vote)] = true;
  available[kClassifier] = true;
  return available;
}

// Dev questions where the classifier is right 80% of the time and BM25 only 40%. The right
// entry has the higher index, so ties go against it.
std::vector<DevQuestion> synthetic_dev(int count, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(0, 1);
  std::vector<DevQuestion> dev;
  for (int i = 0; i < count; ++i) {
    DevQuestion question;
    question.entry = 1;
    Candidate right{1, {}, -1, {}}, wrong{0, {}, -1, {}};
    const bool classifier_right = uniform(random) < 0.8f;
    const bool bm25_right = uniform(random) < 0.4f;
    right.features[kClassifier] = classifier_right ? 0.6f : 0.4f;
    wrong.features[kClassifier] = classifier_right ? 0.4f : 0.6f;
    right.features[kBm25] = bm25_right ? 1.0f : 0.5f;
    wrong.features[kBm25] = bm25_right ? 0.5f : 1.0f;
    question.candidates = {wrong, right};
    dev.push_back(question);
  }
  return dev;
}

TEST(Tuning, FoldsHoldOutEveryQuestionOnceButNeverAnEntrysOnlyDocument) {
  std::vector<Document> documents;
  for (int entry = 0; entry < 50; ++entry) {
    const int questions = entry % 5;  // 0..4 questions; entries 0, 5, ... have only a body
    for (int q = 0; q < questions; ++q)
      documents.push_back({entry, DocumentKind::kQuestion, "q"});
    if (entry % 2 == 0 || questions == 0) documents.push_back({entry, DocumentKind::kBody, "b"});
  }
  constexpr int kFolds = 3;
  const std::vector<int> fold_of = choose_folds(documents, kFolds, 7);
  EXPECT_EQ(fold_of, choose_folds(documents, kFolds, 7));  // seeded
  EXPECT_NE(fold_of, choose_folds(documents, kFolds, 8));
  std::vector<int> size(kFolds, 0);
  int questions = 0, held = 0;
  for (std::size_t d = 0; d < documents.size(); ++d) {
    if (documents[d].kind == DocumentKind::kQuestion) ++questions;
    if (fold_of[d] < 0) continue;
    ASSERT_LT(fold_of[d], kFolds);
    EXPECT_EQ(documents[d].kind, DocumentKind::kQuestion);
    ++size[static_cast<std::size_t>(fold_of[d])];
    ++held;
  }
  // Entries 1, 11, 21, 31, 41 (one question, no body) keep their question out of every fold.
  EXPECT_EQ(held, questions - 5);
  for (int fold = 0; fold < kFolds; ++fold) {
    EXPECT_GE(size[static_cast<std::size_t>(fold)], held / kFolds - 2);
    EXPECT_LE(size[static_cast<std::size_t>(fold)], held / kFolds + 2);
    // Every entry keeps a document outside the fold.
    std::vector<int> kept(50, 0);
    for (std::size_t d = 0; d < documents.size(); ++d) {
      if (fold_of[d] != fold) ++kept[static_cast<std::size_t>(documents[d].entry)];
    }
    for (int entry = 0; entry < 50; ++entry)
      EXPECT_GE(kept[static_cast<std::size_t>(entry)], 1) << "fold " << fold << " entry " << entry;
  }
}

TEST(Tuning, WeightsFollowTheInformativeComponent) {
  const std::vector<DevQuestion> dev = synthetic_dev(400, 1);
  EXPECT_NEAR(measure_component(dev, Component::kClassifier).top1, 0.8, 0.06);
  EXPECT_NEAR(measure_component(dev, Component::kBm25).top1, 0.4, 0.06);
  const WeightChoice choice = choose_weights(dev, lexical());
  EXPECT_GT(choice.weights[kClassifier], choice.weights[kBm25]);
  EXPECT_GE(choice.top1, measure_component(dev, Component::kClassifier).top1);
  float total = 0;
  for (float w : choice.weights)
    total += w;
  EXPECT_NEAR(total, 1.0f, 1e-4);
  EXPECT_EQ(choice.weights[static_cast<std::size_t>(Component::kDense)], 0.0f);
}

// A held-out question of entry 0 whose first two candidates are `margin` apart on the classifier,
// entry 0 first when `first_right`, else second; a distant entry 2 third when `third`.
DevQuestion two_close_candidates(float margin, bool first_right, bool third = false) {
  Candidate first{first_right ? 0 : 1, {}, -1, {}}, second{first_right ? 1 : 0, {}, -1, {}};
  first.features[kClassifier] = 0.5f + margin / 2;
  second.features[kClassifier] = 0.5f - margin / 2;
  DevQuestion question{0, {first, second}};
  if (third) {
    Candidate distant{2, {}, -1, {}};
    distant.features[kClassifier] = 0.01f;
    question.candidates.push_back(distant);
  }
  return question;
}

TEST(Tuning, CalibratedConfidenceRisesWithTheMarginAndMeetsTheTarget) {
  // The right entry's margin is informative: confident questions are right more often.
  std::mt19937 random(3);
  std::uniform_real_distribution<float> uniform(0, 1);
  std::vector<DevQuestion> dev;
  for (int i = 0; i < 500; ++i) {
    const float margin = uniform(random);
    dev.push_back(two_close_candidates(margin, uniform(random) < 0.3f + 0.7f * margin));
  }
  Features weights{};
  weights[kClassifier] = 1;
  const Calibration calibration = fit_calibration(dev, weights, 0.9);
  ASSERT_TRUE(calibration.fitted);
  EXPECT_GT(calibration.margin_weight + calibration.score_weight, 0);
  EXPECT_GE(calibration.dev_precision, 0.9);
  EXPECT_GT(calibration.dev_coverage, 0.1);
  EXPECT_LT(calibration.dev_coverage, 0.9);
  const auto ranking_with = [&](float margin) {
    Candidate first{0, {}, -1, {}}, second{1, {}, -1, {}};
    first.features[kClassifier] = 0.5f + margin / 2;
    second.features[kClassifier] = 0.5f - margin / 2;
    return rank({first, second}, weights);
  };
  EXPECT_LT(confidence(calibration, ranking_with(0.1f)),
            confidence(calibration, ranking_with(0.9f)));
  // The middle way never asks more than the threshold does.
  EXPECT_LE(calibration.offer_threshold, calibration.threshold);
  EXPECT_GE(calibration.dev_offer_coverage, calibration.dev_coverage);
  // Too few questions: not fitted, and confidence falls back to the relative margin.
  const Calibration unfitted =
      fit_calibration(std::vector<DevQuestion>(dev.begin(), dev.begin() + 10), weights, 0.9);
  EXPECT_FALSE(unfitted.fitted);
  EXPECT_NEAR(confidence(unfitted, ranking_with(0.5f)), 0.5 / 0.75, 1e-6);
}

TEST(SemanticCache, CalibrationKeepsWrongHitsUnderTheTarget) {
  // Two labels; paraphrases lie near their label's direction, with overlap near the middle.
  std::mt19937 random(5);
  std::normal_distribution<float> noise(0, 0.35f);
  const auto sample = [&](int label) {
    std::vector<float> v = {label == 0 ? 1.0f : 0.0f, label == 1 ? 1.0f : 0.0f, 0, 0};
    float norm = 0;
    for (float& x : v) {
      x += noise(random);
      norm += x * x;
    }
    for (float& x : v)
      x /= std::sqrt(norm);
    return v;
  };
  std::vector<float> cached, queries;
  std::vector<int> cached_labels, query_labels;
  for (int i = 0; i < 400; ++i) {
    const int label = i % 2;
    const auto v = sample(label);
    auto& target = i < 200 ? cached : queries;
    target.insert(target.end(), v.begin(), v.end());
    (i < 200 ? cached_labels : query_labels).push_back(label);
  }
  auto calibration =
      calibrate_semantic_cache(cached, cached_labels, queries, query_labels, 4, 0.01);
  ASSERT_TRUE(calibration.ok()) << calibration.error().message;
  EXPECT_LE(calibration->wrong_hit_rate, 0.01);
  EXPECT_GT(calibration->hit_rate, 0.1);
  EXPECT_LT(calibration->threshold, 1.0);
  EXPECT_EQ(calibration->questions, 200);
  EXPECT_FALSE(calibrate_semantic_cache({}, {}, queries, query_labels, 4).ok());
}

// When the right entry is second as often as it is first, the first alone is right half the
// time but the three offered hold it: the middle way answers where the threshold would not.
TEST(FusionTuning, OfferThresholdCoversWhatTheFirstThreeHold) {
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(0, 1);
  std::vector<DevQuestion> dev;
  for (int i = 0; i < 400; ++i) {
    const float margin = uniform(random);
    // Wide margins: right; narrow ones: the right entry is first or second, by a coin.
    dev.push_back(two_close_candidates(margin, margin > 0.6f || uniform(random) < 0.5f, true));
  }
  Features weights{};
  weights[kClassifier] = 1;
  const Calibration calibration = fit_calibration(dev, weights, 0.9);
  ASSERT_TRUE(calibration.fitted);
  EXPECT_LT(calibration.offer_threshold, calibration.threshold);
  EXPECT_GT(calibration.dev_offer_coverage, 0.95);  // every question holds it in its three
  EXPECT_LT(calibration.dev_coverage, 0.8);
}

}  // namespace
}  // namespace supportd::kb
