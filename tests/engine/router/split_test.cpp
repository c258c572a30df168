// The router's traffic split without a model: a split's checks name the field at fault; the
// pick spreads distinct routing keys over the versions within a tolerance of their weights;
// one key always lands on one version; a weight of 0 is never picked.
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
