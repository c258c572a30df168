#include "engine/host_cache.h"

#include <gtest/gtest.h>

namespace supportd::engine {
namespace {

using Tokens = std::vector<HostCache::Token>;

HostCache::Entry entry(Tokens tokens, std::size_t bytes, std::uint8_t fill = 1) {
  return {std::move(tokens), std::vector<std::uint8_t>(bytes, fill)};
}

TEST(HostCache, FindsTheEntrySharingTheLongestPrefix) {
  HostCache cache(1000);
  ASSERT_TRUE(cache.insert(entry({1, 2, 3, 4}, 10, 1)));
  ASSERT_TRUE(cache.insert(entry({1, 2, 5}, 10, 2)));
  const auto m = cache.lookup(Tokens{1, 2, 3, 9});
  ASSERT_NE(m.entry, nullptr);
  EXPECT_EQ(m.length, 3u);
  EXPECT_EQ(m.entry->tokens, (Tokens{1, 2, 3, 4}));
  EXPECT_EQ(m.entry->state, std::vector<std::uint8_t>(10, 1));
  EXPECT_EQ(cache.entries(), 2u);  // a restore copies: the entry stays
  EXPECT_EQ(cache.bytes(), 20u);
  const auto none = cache.lookup(Tokens{7, 8});
  EXPECT_EQ(none.entry, nullptr);
  EXPECT_EQ(none.length, 0u);
}

TEST(HostCache, EvictsTheLeastRecentlyUsedWhenBytesRunOut) {
  HostCache cache(25);
  cache.insert(entry({1}, 10));
  cache.insert(entry({2}, 10));
  cache.lookup(Tokens{1});       // {1} is now the most recent
  cache.insert(entry({3}, 10));  // 30 bytes > 25: {2} goes
  EXPECT_EQ(cache.entries(), 2u);
  EXPECT_EQ(cache.bytes(), 20u);
  EXPECT_EQ(cache.lookup(Tokens{2}).length, 0u);
  EXPECT_EQ(cache.lookup(Tokens{1}).length, 1u);
  EXPECT_EQ(cache.lookup(Tokens{3}).length, 1u);
  EXPECT_FALSE(cache.insert(entry({4}, 26)));  // alone over the budget
  EXPECT_EQ(cache.entries(), 2u);
}

TEST(HostCache, ALongerEntryReplacesItsPrefixAndAShorterOneIsNotKept) {
  HostCache cache(1000);
  cache.insert(entry({1, 2}, 10));
  ASSERT_TRUE(cache.insert(entry({1, 2, 3}, 15)));
  EXPECT_EQ(cache.entries(), 1u);
  EXPECT_EQ(cache.bytes(), 15u);
  EXPECT_FALSE(cache.insert(entry({1, 2}, 10)));  // covered by {1, 2, 3}
  EXPECT_EQ(cache.entries(), 1u);
  cache.clear();
  EXPECT_EQ(cache.entries(), 0u);
  EXPECT_EQ(cache.bytes(), 0u);
}

}  // namespace
}  // namespace supportd::engine
