// The retrieval components on small, hand-made data: BM25, the dense index (exact and HNSW),
// the softmax head, the fastText classifier.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "kb/classify/intent_classifier.h"
#include "kb/classify/softmax_head.h"
#include "kb/index/bm25_index.h"
#include "kb/index/dense_index.h"
#include "test_dir.h"

namespace supportd::kb {
namespace {

using Terms = std::vector<std::string>;

TEST(Bm25, RareTermsOutweighCommonOnes) {
  const Bm25Index index({{"card", "arrive", "late"},
                         {"card", "pin", "block"},
                         {"top", "up", "card"},
                         {"exchange", "rate", "card"}});
  const Terms query = {"card", "pin"};
  const auto hits = index.search(query, 10);
  ASSERT_EQ(hits.size(), 4u);  // every document has "card"
  EXPECT_EQ(hits[0].document, 1);
  EXPECT_GT(hits[0].score, 2 * hits[1].score);
  EXPECT_EQ(index.search(Terms{"unknown"}, 10).size(), 0u);
  EXPECT_EQ(index.search(query, 2).size(), 2u);
  EXPECT_EQ(index.vocabulary(), 9);
}

TEST(Bm25, ShorterDocumentsWinOnEqualMatches) {
  const Bm25Index index({{"refund", "a", "b", "c", "d", "e", "f", "g"}, {"refund", "x"}});
  const auto hits = index.search(Terms{"refund"}, 2);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].document, 1);
}

std::vector<float> random_unit_vectors(int rows, int dimensions, unsigned seed) {
  std::mt19937 random(seed);
  std::normal_distribution<float> normal;
  std::vector<float> values(static_cast<std::size_t>(rows * dimensions));
  for (int r = 0; r < rows; ++r) {
    float norm = 0;
    for (int d = 0; d < dimensions; ++d) {
      float& v = values[static_cast<std::size_t>(r * dimensions + d)];
      v = normal(random);
      norm += v * v;
    }
    for (int d = 0; d < dimensions; ++d)
      values[static_cast<std::size_t>(r * dimensions + d)] /= std::sqrt(norm);
  }
  return values;
}

TEST(DenseIndex, ExactSearchFindsTheNearestByCosine) {
  const int dimensions = 16;
  std::vector<float> values = random_unit_vectors(100, dimensions, 1);
  auto index = DenseIndex::build(values, dimensions);
  ASSERT_TRUE(index.ok());
  EXPECT_FALSE((*index)->approximate());
  for (int row : {0, 42, 99}) {
    const auto hits = (*index)->search((*index)->vector(row), 3);
    ASSERT_EQ(hits.size(), 3u);
    EXPECT_EQ(hits[0].row, row);
    EXPECT_NEAR(hits[0].similarity, 1.0f, 1e-5);
    EXPECT_GE(hits[0].similarity, hits[1].similarity);
    EXPECT_GE(hits[1].similarity, hits[2].similarity);
  }
  EXPECT_FALSE(DenseIndex::build(std::vector<float>(10), 3).ok());  // not whole rows
}

TEST(DenseIndex, HnswAgreesWithExactSearchAndReloadsItsGraph) {
  const int dimensions = 32, rows = 2000;
  std::vector<float> values = random_unit_vectors(rows, dimensions, 2);
  auto exact = DenseIndex::build(values, dimensions);
  testing::TestDir dir("hnsw");
  const std::string graph = dir.path() + "/graph.bin";
  auto approximate = DenseIndex::build(values, dimensions, /*exact_limit=*/500);
  ASSERT_TRUE(approximate.ok());
  EXPECT_TRUE((*approximate)->approximate());
  ASSERT_TRUE((*approximate)->save_graph(graph).ok());
  auto reloaded = DenseIndex::build(values, dimensions, 500, graph);
  ASSERT_TRUE(reloaded.ok()) << reloaded.error().message;
  const std::vector<float> queries = random_unit_vectors(50, dimensions, 3);
  int agree = 0, agree_reloaded = 0;
  for (int q = 0; q < 50; ++q) {
    const std::span<const float> query(queries.data() + q * dimensions, dimensions);
    const int truth = (*exact)->search(query, 1)[0].row;
    agree += (*approximate)->search(query, 1)[0].row == truth;
    agree_reloaded += (*reloaded)->search(query, 1)[0].row == truth;
  }
  EXPECT_GE(agree, 48);
  EXPECT_EQ(agree_reloaded, agree);
  // A graph of another size is refused.
  auto mismatched =
      DenseIndex::build(std::vector<float>(values.begin(), values.begin() + 1000 * dimensions),
                        dimensions, 500, graph);
  EXPECT_FALSE(mismatched.ok());
}

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
