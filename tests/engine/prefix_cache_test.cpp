// The prefix cache's trie: the longest cached prefix found, shared prefixes stored once, LRU
// eviction by cells and by sequence ids, oversized entries refused, counts consistent under
// random operations.
#include "engine/prefix_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace supportd::engine {
namespace {

using Tokens = std::vector<PrefixCache::Token>;

TEST(PrefixCache, FindsTheLongestCachedPrefix) {
  PrefixCache cache({10, 11}, 100);
  const auto a = cache.insert(Tokens{1, 2, 3, 4});
  ASSERT_EQ(a.seq_id, 10);
  EXPECT_TRUE(a.evicted.empty());
  const auto m = cache.lookup(Tokens{1, 2, 3, 9, 9});
  EXPECT_EQ(m.seq_id, 10);
  EXPECT_EQ(m.length, 3u);
  EXPECT_EQ(cache.lookup(Tokens{7}).length, 0u);
  EXPECT_EQ(cache.cells(), 4u);
}

TEST(PrefixCache, SharedPrefixesAreStoredOnce) {
  PrefixCache cache({10, 11}, 100);
  cache.insert(Tokens{1, 2, 3, 4});
  const auto b = cache.insert(Tokens{1, 2, 5});
  EXPECT_EQ(b.seq_id, 11);
  EXPECT_EQ(cache.cells(), 5u);  // 1,2,3,4 + 5
  EXPECT_EQ(cache.lookup(Tokens{1, 2, 5, 6}).seq_id, 11);
}

TEST(PrefixCache, ALongerEntryReplacesItsPrefix) {
  PrefixCache cache({10, 11}, 100);
  cache.insert(Tokens{1, 2});
  const auto b = cache.insert(Tokens{1, 2, 3});
  EXPECT_EQ(b.evicted, std::vector<int>{10});
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_EQ(cache.cells(), 3u);
  const auto again = cache.insert(Tokens{1, 2});
  EXPECT_TRUE(again.already_cached);
}

TEST(PrefixCache, EvictsLeastRecentlyUsedWhenCellsRunOut) {
  PrefixCache cache({10, 11, 12}, 6);
  cache.insert(Tokens{1, 2, 3});     // seq 10
  cache.insert(Tokens{4, 5, 6});     // seq 11
  cache.lookup(Tokens{1, 2, 3, 0});  // 10 is now the most recent
  const auto c = cache.insert(Tokens{7, 8});
  EXPECT_EQ(c.evicted, std::vector<int>{11});
  EXPECT_EQ(cache.lookup(Tokens{4, 5}).length, 0u);
  EXPECT_EQ(cache.lookup(Tokens{1, 2, 3}).length, 3u);
  EXPECT_LE(cache.cells(), 6u);
}

TEST(PrefixCache, EvictsWhenSequenceIdsRunOut) {
  PrefixCache cache({10}, 100);
  cache.insert(Tokens{1});
  const auto b = cache.insert(Tokens{2});
  EXPECT_EQ(b.evicted, std::vector<int>{10});
  EXPECT_EQ(b.seq_id, 10);
}

TEST(PrefixCache, RefusesEntriesLargerThanTheBound) {
  PrefixCache cache({10}, 3);
  EXPECT_EQ(cache.insert(Tokens{1, 2, 3, 4}).seq_id, -1);
}

TEST(PrefixCache, RandomOperationsKeepCountsConsistent) {
  std::mt19937 random(7);
  PrefixCache cache({1, 2, 3, 4, 5}, 40);
  for (int i = 0; i < 2000; ++i) {
    Tokens t(1 + random() % 12);
    for (auto& x : t)
      x = static_cast<PrefixCache::Token>(random() % 3);
    if (random() % 3 == 0) {
      const auto m = cache.lookup(t);
      EXPECT_LE(m.length, t.size());
    } else {
      cache.insert(t);
    }
    ASSERT_LE(cache.cells(), 40u);
    ASSERT_LE(cache.entries(), 5u);
  }
  cache.clear();
  EXPECT_EQ(cache.cells(), 0u);
  EXPECT_EQ(cache.entries(), 0u);
}

}  // namespace
}  // namespace supportd::engine
