// The automatic rollback's decision without a model: nothing trips before the minimum count on
// each side, nor on one slow or failed request; a canary whose error rate, refusal rate or
// TTFT p99 is worse than stable's by the margin over enough requests trips, named by the
// figure; a canary as good as stable never does.
#include <gtest/gtest.h>

#include "engine/router/canary_check.h"

namespace supportd::engine::router {
namespace {

// A sample of `requests`, `errors` of them failed, with `slow` TTFTs of `slow_ms` and the rest
// of `fast_ms`.
CanarySample sample(int requests, int errors, int slow, double slow_ms, double fast_ms = 100) {
  obs::Histogram ttft(obs::exponential_buckets(1, 1.5, 32));
  for (int i = 0; i < requests; ++i)
    ttft.observe(i < slow ? slow_ms : fast_ms);
  return CanarySample{requests, errors, 0, ttft.snapshot()};
}

TEST(CanaryCheck, NothingTripsBeforeTheMinimumOrOnOneBadRequest) {
  const CanaryLimits limits;  // 50 requests, p99 x1.5, rates +5% and 3 standard errors
  EXPECT_FALSE(canary_verdict(sample(200, 0, 0, 0), sample(49, 49, 49, 5000), limits));
  EXPECT_FALSE(canary_verdict(sample(200, 0, 0, 0), sample(100, 1, 0, 0), limits));
  EXPECT_FALSE(canary_verdict(sample(200, 2, 0, 0), sample(100, 1, 0, 0), limits));
}

TEST(CanaryCheck, AWorseErrorRateTripsNamingIt) {
  const auto verdict = canary_verdict(sample(400, 4, 0, 0), sample(100, 20, 0, 0), {});
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->rfind("error_rate", 0), 0u) << *verdict;
}

TEST(CanaryCheck, AWorseRefusalRateTripsNamingIt) {
  CanarySample canary = sample(100, 0, 0, 0);
  canary.refusals = 30;
  const auto verdict = canary_verdict(sample(400, 0, 0, 0), canary, {});
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->rfind("refusal_rate", 0), 0u) << *verdict;
}

TEST(CanaryCheck, ASlowerTtftP99TripsNamingIt) {
  // 5 of 100 canary requests at 3 s: its p99 is there; stable's is 100 ms.
  const auto verdict = canary_verdict(sample(400, 0, 0, 0), sample(100, 0, 5, 3000), {});
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(verdict->rfind("ttft_p99", 0), 0u) << *verdict;
  // As slow as stable: holds.
  EXPECT_FALSE(canary_verdict(sample(400, 0, 20, 3000), sample(100, 0, 5, 3000), {}));
}

TEST(CanaryCheck, SinceSubtractsAnEarlierSnapshot) {
  obs::Histogram ttft(obs::exponential_buckets(1, 2, 8));
  for (int i = 0; i < 10; ++i)
    ttft.observe(3);
  const auto before = ttft.snapshot();
  for (int i = 0; i < 4; ++i)
    ttft.observe(100);
  const auto difference = since(ttft.snapshot(), before);
  EXPECT_EQ(difference.count, 4u);
  EXPECT_DOUBLE_EQ(difference.sum, 400);
  EXPECT_EQ(difference.cumulative[2], 0u);  // the bucket up to 4 held only the earlier ones
}

}  // namespace
}  // namespace supportd::engine::router
