// The classifiers on small, hand-made data: the softmax head on vectors and the fastText intent
// classifier learn separable classes, save and load back the same predictions, and refuse a
// file that is not theirs.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "kb/classify/intent_classifier.h"
#include "kb/classify/softmax_head.h"
#include "test_dir.h"

namespace supportd::kb {
namespace {

TEST(SoftmaxHead, LearnsSeparableClassesAndRoundTrips) {
  // Three clusters around three axes.
  const int dimensions = 8;
  std::mt19937 random(4);
  std::normal_distribution<float> noise(0, 0.2f);
  std::vector<float> vectors;
  std::vector<int> targets;
  for (int i = 0; i < 300; ++i) {
    const int target = 10 + i % 3;  // targets need not start at 0
    for (int d = 0; d < dimensions; ++d)
      vectors.push_back((d == target - 10 ? 1.0f : 0.0f) + noise(random));
    targets.push_back(target);
  }
  auto head = SoftmaxHead::train(vectors, dimensions, targets, {});
  ASSERT_TRUE(head.ok()) << head.error().message;
  std::vector<float> probe(dimensions, 0.0f);
  probe[1] = 1;
  auto scores = (*head)->predict(probe);
  ASSERT_EQ(scores.size(), 3u);
  float total = 0;
  const SoftmaxHead::Score* best = &scores[0];
  for (const auto& s : scores) {
    total += s.probability;
    if (s.probability > best->probability) best = &s;
  }
  EXPECT_NEAR(total, 1.0f, 1e-4);
  EXPECT_EQ(best->target, 11);
  EXPECT_GT(best->probability, 0.8f);

  testing::TestDir dir("head");
  ASSERT_TRUE((*head)->save(dir.path() + "/head.bin").ok());
  auto loaded = SoftmaxHead::load(dir.path() + "/head.bin");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  auto again = (*loaded)->predict(probe);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    EXPECT_EQ(again[i].target, scores[i].target);
    EXPECT_FLOAT_EQ(again[i].probability, scores[i].probability);
  }
  std::ofstream(dir.path() + "/bad.bin") << "not a head";
  EXPECT_EQ(SoftmaxHead::load(dir.path() + "/bad.bin").error().code, ErrorCode::kCorrupt);
}

TEST(IntentClassifier, TrainsPredictsAndRoundTrips) {
  testing::TestDir dir("classifier");
  std::vector<std::string> texts;
  std::vector<int> classes;
  const std::vector<std::vector<std::string>> examples = {
      {"where is my card", "card not arrived yet", "when will my card arrive", "card delivery"},
      {"how do i top up", "add money to account", "top up with bank transfer", "top up failed"},
      {"exchange rate is wrong", "what rate do you use", "currency exchange fee", "rate for euro"}};
  for (int repeat = 0; repeat < 5; ++repeat) {
    for (int c = 0; c < 3; ++c) {
      for (const auto& text : examples[static_cast<std::size_t>(c)]) {
        texts.push_back(text);
        classes.push_back(c * 2);  // classes 0, 2, 4 of 5: 1 and 3 never seen
      }
    }
  }
  ClassifierParams params;
  params.epochs = 30;
  params.buckets = 10000;
  auto classifier = IntentClassifier::train(texts, classes, 5, params, dir.path());
  ASSERT_TRUE(classifier.ok()) << classifier.error().message;
  const std::vector<float> probabilities = (*classifier)->predict("my card has not arrived");
  ASSERT_EQ(probabilities.size(), 5u);
  EXPECT_GT(probabilities[0], probabilities[2]);
  EXPECT_GT(probabilities[0], probabilities[4]);
  EXPECT_EQ(probabilities[1], 0.0f);
  EXPECT_GT((*classifier)->predict("top up failed")[2], 0.5f);

  ASSERT_TRUE((*classifier)->save(dir.path() + "/model.bin").ok());
  auto loaded = IntentClassifier::load(dir.path() + "/model.bin", 5);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ((*loaded)->predict("my card has not arrived"), probabilities);
  // A model naming classes this knowledge base does not have is refused.
  EXPECT_EQ(IntentClassifier::load(dir.path() + "/model.bin", 3).error().code, ErrorCode::kCorrupt);
  std::ofstream(dir.path() + "/bad.bin") << "garbage";
  EXPECT_EQ(IntentClassifier::load(dir.path() + "/bad.bin", 5).error().code, ErrorCode::kCorrupt);
  EXPECT_FALSE(IntentClassifier::train({}, {}, 5, params, dir.path()).ok());
}

}  // namespace
}  // namespace supportd::kb
