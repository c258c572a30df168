// The indexes on small, hand-made data: BM25 (rare terms, document length) and the dense index
// (exact, and HNSW agreeing with it and reloading its graph).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

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

}  // namespace
}  // namespace supportd::kb
