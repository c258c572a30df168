// The router's traffic split without a model: a split's checks name the field at fault; the
// pick spreads distinct routing keys over the versions within a tolerance of their weights;
// one key always lands on one version; a weight of 0 is never picked; a shadow's checks and
// its share of draws.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "engine/router/split.h"

namespace supportd::engine::router {
namespace {

Split split_of(std::vector<Share> shares) {
  return Split{std::move(shares), true};
}

TEST(SplitTest, RefusesWhatCannotBeASplitNamingTheField) {
  EXPECT_TRUE(check_split(split_of({{"a", 95}, {"b", 5}})).ok());
  EXPECT_TRUE(check_split(split_of({{"a", 100}, {"b", 0}})).ok());

  const Status sum = check_split(split_of({{"a", 60}, {"b", 60}}));
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.error().param, "weights");
  EXPECT_NE(sum.error().message.find("120"), std::string::npos) << sum.error().message;

  const Status negative = check_split(split_of({{"a", 110}, {"b", -10}}));
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().param, "weights.a");  // over 100 comes first

  const Status below = check_split(split_of({{"a", -5}, {"b", 105}}));
  ASSERT_FALSE(below.ok());
  EXPECT_EQ(below.error().param, "weights.a");
  EXPECT_NE(below.error().message.find("negative"), std::string::npos);

  const Status twice = check_split(split_of({{"a", 50}, {"a", 50}}));
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().param, "weights.a");

  EXPECT_EQ(check_split(split_of({})).error().param, "weights");
}

TEST(SplitTest, RefusesABadShadowNamingTheField) {
  Split split = split_of({{"a", 100}});
  split.shadow = Shadow{"b", 10};
  EXPECT_TRUE(check_split(split).ok());
  split.shadow = Shadow{"b", 101};
  EXPECT_EQ(check_split(split).error().param, "shadow.percent");
  split.shadow = Shadow{"b", -1};
  EXPECT_EQ(check_split(split).error().param, "shadow.percent");
  split.shadow = Shadow{"", 10};
  EXPECT_EQ(check_split(split).error().param, "shadow.version");
}

TEST(SplitTest, AStoredSplitReadsBackWhole) {
  Split split = split_of({{"v1.2", 95}, {"canary_3", 5}});
  split.sticky = false;
  split.shadow = Shadow{"next-4", 20};
  const std::string text = encode_split(split);
  EXPECT_EQ(text, "v1.2=95,canary_3=5;sticky=0;shadow=next-4:20");
  auto back = decode_split(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(encode_split(*back), text);
  EXPECT_FALSE(back->sticky);
  ASSERT_TRUE(back->shadow.has_value());
  EXPECT_EQ(back->shadow->percent, 20);
  EXPECT_TRUE(decode_split("")->shares.empty());
  EXPECT_EQ(encode_split(Split{}), "");
  for (const char* bad : {"v1", "v1=x;sticky=1", "v1=100;colour=red", "v1=100;shadow=v2"})
    EXPECT_FALSE(decode_split(bad).ok()) << bad;
}

TEST(SplitTest, AShadowTakesItsPercentOfDrawsAndIsDescribed) {
  const Shadow tenth{"b", 10};
  int taken = 0;
  for (std::uint64_t i = 0; i < 10000; ++i)
    taken += shadow_takes(tenth, scramble(i)) ? 1 : 0;
  EXPECT_NEAR(taken, 1000, 150);
  EXPECT_FALSE(shadow_takes(Shadow{"b", 0}, 0));
  EXPECT_TRUE(shadow_takes(Shadow{"b", 100}, 99));
  Split split = split_of({{"a", 95}, {"c", 5}});
  split.shadow = tenth;
  EXPECT_EQ(describe(split), "a 95%, c 5%; shadow b 10% (sticky)");
}

TEST(SplitTest, DistinctKeysSpreadWithinToleranceOfTheWeights) {
  const Split canary = split_of({{"stable", 90}, {"canary", 10}});
  std::map<std::size_t, int> counts;
  constexpr int kKeys = 20000;
  for (int i = 0; i < kKeys; ++i)
    ++counts[pick_share(canary, routing_hash("session-" + std::to_string(i)))];
  // 10% of 20000 is 2000; the binomial's standard deviation is about 42.
  EXPECT_NEAR(counts[1], 2000, 250);
  EXPECT_NEAR(counts[0], 18000, 250);
}

TEST(SplitTest, ScrambledCounterSpreadsLikeKeys) {
  const Split ab = split_of({{"a", 50}, {"b", 50}});
  int b = 0;
  for (std::uint64_t i = 0; i < 10000; ++i)
    b += pick_share(ab, scramble(i)) == 1 ? 1 : 0;
  EXPECT_NEAR(b, 5000, 250);
}

TEST(SplitTest, OneKeyAlwaysLandsOnOneVersion) {
  const Split ab = split_of({{"a", 50}, {"b", 50}});
  for (int i = 0; i < 200; ++i) {
    const std::string key = "user-" + std::to_string(i);
    const std::size_t first = pick_share(ab, routing_hash(key));
    for (int again = 0; again < 5; ++again)
      EXPECT_EQ(pick_share(ab, routing_hash(key)), first) << key;
  }
}

TEST(SplitTest, AZeroWeightIsNeverPicked) {
  const Split all_b = split_of({{"a", 0}, {"b", 100}});
  for (std::uint64_t i = 0; i < 1000; ++i)
    EXPECT_EQ(pick_share(all_b, scramble(i)), 1u);
}

}  // namespace
}  // namespace supportd::engine::router
