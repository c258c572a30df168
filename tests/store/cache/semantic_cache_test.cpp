// The semantic answer cache: close questions hit within their scope (the knowledge-base
// version), far ones and other scopes miss, vectors of the wrong size are refused, LRU bound.
#include "store/cache/semantic_cache.h"

#include <gtest/gtest.h>

#include <vector>

namespace supportd::store {
namespace {

TEST(SemanticCache, AnswersCloseQuestionsWithinTheirScope) {
  SemanticCache cache(3, 0.9, 2);
  const std::vector<float> a = {1, 0, 0}, near_a = {0.99f, 0.141f, 0}, b = {0, 1, 0};
  ASSERT_TRUE(cache.insert(a, "v1", "where is my card?", "answer a").ok());
  auto hit = cache.lookup(near_a, "v1");
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->answer, "answer a");
  EXPECT_GT(hit->similarity, 0.9);
  EXPECT_FALSE(cache.lookup(b, "v1").has_value());       // not close enough
  EXPECT_FALSE(cache.lookup(near_a, "v2").has_value());  // another knowledge-base version
  EXPECT_FALSE(cache.insert(std::vector<float>{1, 0}, "v1", "q", "a").ok());
  // Capacity 2: the least recently used goes.
  ASSERT_TRUE(cache.insert(b, "v1", "b?", "answer b").ok());
  ASSERT_TRUE(cache.lookup(a, "v1").has_value());  // a is now the most recent
  ASSERT_TRUE(cache.insert(std::vector<float>{0, 0, 1}, "v1", "c?", "answer c").ok());
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_TRUE(cache.lookup(a, "v1").has_value());
  EXPECT_FALSE(cache.lookup(b, "v1").has_value());
  cache.clear();
  EXPECT_EQ(cache.size(), 0u);
}

}  // namespace
}  // namespace supportd::store
