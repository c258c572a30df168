// The prefix cache's trie: the longest cached prefix found, shared prefixes stored once, LRU
// eviction by cells and by sequence ids, oversized entries refused, probation (at most so many
// entries longer than their proof, the oldest losing its tail first: removed when nothing of it
// is proven or another entry holds the proven part, else cut to it; proof inherited by a longer
// entry), counts consistent under random operations.
#include "engine/prefix_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace supportd::engine {
namespace {

using Tokens = std::vector<PrefixCache::Token>;
constexpr std::size_t kNoProbation = 1000;  // more unproven entries than a test makes

TEST(PrefixCache, FindsTheLongestCachedPrefix) {
  PrefixCache cache({10, 11}, 100, kNoProbation);
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
  PrefixCache cache({10, 11}, 100, kNoProbation);
  cache.insert(Tokens{1, 2, 3, 4});
  const auto b = cache.insert(Tokens{1, 2, 5});
  EXPECT_EQ(b.seq_id, 11);
  EXPECT_EQ(cache.cells(), 5u);  // 1,2,3,4 + 5
  EXPECT_EQ(cache.lookup(Tokens{1, 2, 5, 6}).seq_id, 11);
}

TEST(PrefixCache, ALongerEntryReplacesItsPrefix) {
  PrefixCache cache({10, 11}, 100, kNoProbation);
  cache.insert(Tokens{1, 2});
  const auto b = cache.insert(Tokens{1, 2, 3});
  EXPECT_EQ(b.evicted, std::vector<int>{10});
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_EQ(cache.cells(), 3u);
  const auto again = cache.insert(Tokens{1, 2});
  EXPECT_TRUE(again.already_cached);
}

TEST(PrefixCache, EvictsLeastRecentlyUsedWhenCellsRunOut) {
  PrefixCache cache({10, 11, 12}, 6, kNoProbation);
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
  PrefixCache cache({10}, 100, kNoProbation);
  cache.insert(Tokens{1});
  const auto b = cache.insert(Tokens{2});
  EXPECT_EQ(b.evicted, std::vector<int>{10});
  EXPECT_EQ(b.seq_id, 10);
}

TEST(PrefixCache, RefusesEntriesLargerThanTheBound) {
  PrefixCache cache({10}, 3, kNoProbation);
  EXPECT_EQ(cache.insert(Tokens{1, 2, 3, 4}).seq_id, -1);
}

TEST(PrefixCache, UnprovenEntriesBeyondProbationGoOldestFirst) {
  PrefixCache cache({10, 11, 12, 13}, 100, 2);
  cache.insert(Tokens{1, 1});  // seq 10
  cache.insert(Tokens{2, 2});  // seq 11
  EXPECT_EQ(cache.unproven_entries(), 2u);
  const auto c = cache.insert(Tokens{3, 3});
  EXPECT_EQ(c.seq_id, 12);
  EXPECT_EQ(c.evicted, std::vector<int>{10});
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.cells(), 4u);
  EXPECT_EQ(cache.lookup(Tokens{1, 1}).length, 0u);
  EXPECT_EQ(cache.lookup(Tokens{2, 2}).length, 2u);
}

TEST(PrefixCache, ProvenEntriesOutliveTheProbation) {
  PrefixCache cache({10, 11, 12, 13}, 100, 1);
  cache.insert(Tokens{1, 1}, 2);  // seq 10: its request reused all of it
  cache.insert(Tokens{2, 2});     // seq 11
  cache.mark_reused(11, 2);       // a request took its tokens
  cache.insert(Tokens{3, 3});     // seq 12
  const auto d = cache.insert(Tokens{4, 4});
  EXPECT_EQ(d.evicted, std::vector<int>{12});
  EXPECT_EQ(cache.unproven_entries(), 1u);
  EXPECT_EQ(cache.lookup(Tokens{1, 1}).seq_id, 10);
  EXPECT_EQ(cache.lookup(Tokens{2, 2}).seq_id, 11);
  cache.mark_reused(99, 2);  // not an entry: ignored
  EXPECT_EQ(cache.entries(), 3u);
}

TEST(PrefixCache, AConversationKeepsTheProofOfItsEarlierTurns) {
  PrefixCache cache({10, 11, 12}, 100, 1);
  cache.insert(Tokens{1, 2}, 2);                    // a turn, all of it reused by the next
  const auto turn = cache.insert(Tokens{1, 2, 3});  // the next turn replaces it
  EXPECT_EQ(turn.evicted, std::vector<int>{10});
  EXPECT_EQ(cache.unproven_entries(), 1u);  // its new tail, 3, is not proven
  const auto other = cache.insert(Tokens{5});
  // Two on probation: the older loses its tail, back to the proven turns.
  EXPECT_EQ(turn.seq_id, 10);  // the id its turn freed
  EXPECT_EQ(other.trimmed, (std::vector<PrefixCache::Trim>{{10, 2}}));
  EXPECT_TRUE(other.evicted.empty());
  EXPECT_EQ(cache.entry_length(10), 2u);
  EXPECT_EQ(cache.cells(), 3u);
  EXPECT_EQ(cache.unproven_entries(), 1u);
  EXPECT_EQ(cache.lookup(Tokens{1, 2, 3}).length, 2u);
  cache.insert(Tokens{6});
  EXPECT_EQ(cache.lookup(Tokens{5}).length, 0u);  // nothing of it proven: removed when 6 came
}

TEST(PrefixCache, ASharedPromptStaysOnceAndOnlyTheNewestTailsWithIt) {
  // Conversations that each reused a 4-token system prompt: their tails are on probation, and
  // the oldest goes whole, since the others hold the prompt.
  PrefixCache cache({10, 11, 12, 13}, 100, 2);
  cache.insert(Tokens{7, 7, 7, 7, 1}, 4);  // seq 10
  cache.insert(Tokens{7, 7, 7, 7, 2}, 4);  // seq 11
  EXPECT_EQ(cache.unproven_entries(), 2u);
  const auto third = cache.insert(Tokens{7, 7, 7, 7, 3}, 4);
  EXPECT_EQ(third.evicted, std::vector<int>{10});
  EXPECT_TRUE(third.trimmed.empty());
  EXPECT_EQ(cache.cells(), 6u);  // the prompt once, two tails
  EXPECT_EQ(cache.lookup(Tokens{7, 7, 7, 7, 9}).length, 4u);
  EXPECT_EQ(cache.lookup(Tokens{7, 7, 7, 7, 1}).length, 4u);
}

TEST(PrefixCache, TheLastEntryHoldingAProvenPromptIsCutToIt) {
  PrefixCache cache({10, 11, 12}, 100, 1);
  cache.insert(Tokens{7, 7, 7, 7, 1, 1}, 4);  // seq 10: the prompt reused, the rest not
  const auto other = cache.insert(Tokens{5, 5});
  EXPECT_EQ(other.trimmed, (std::vector<PrefixCache::Trim>{{10, 4}}));
  EXPECT_TRUE(other.evicted.empty());
  EXPECT_EQ(cache.entry_length(10), 4u);
  EXPECT_EQ(cache.cells(), 6u);
  EXPECT_EQ(cache.unproven_entries(), 1u);  // {5, 5}
  EXPECT_EQ(cache.lookup(Tokens{7, 7, 7, 7, 1, 1}).length, 4u);
  // A continuation proves an entry whole: it is no longer on probation.
  cache.mark_reused(11, 2);
  EXPECT_EQ(cache.unproven_entries(), 0u);
}

TEST(PrefixCache, RandomOperationsKeepCountsConsistent) {
  std::mt19937 random(7);
  PrefixCache cache({1, 2, 3, 4, 5}, 40, 2);
  for (int i = 0; i < 2000; ++i) {
    Tokens t(1 + random() % 12);
    for (auto& x : t)
      x = static_cast<PrefixCache::Token>(random() % 3);
    if (random() % 3 == 0) {
      const auto m = cache.lookup(t);
      EXPECT_LE(m.length, t.size());
      if (m.length > 0 && random() % 2 == 0) cache.mark_reused(m.seq_id, m.length);
    } else {
      const auto insertion = cache.insert(t, random() % 4 == 0 ? random() % (t.size() + 1) : 0);
      for (const auto& trim : insertion.trimmed)
        ASSERT_EQ(cache.entry_length(trim.seq_id), trim.length);
    }
    ASSERT_LE(cache.cells(), 40u);
    ASSERT_LE(cache.entries(), 5u);
    ASSERT_LE(cache.unproven_entries(), 2u);
    ASSERT_LE(cache.unproven_entries(), cache.entries());
  }
  cache.clear();
  EXPECT_EQ(cache.cells(), 0u);
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.unproven_entries(), 0u);
}

}  // namespace
}  // namespace supportd::engine
