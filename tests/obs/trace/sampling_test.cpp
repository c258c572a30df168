// The parent-based ratio sampler and the end-of-request keep rule; trace and span ids.
#include "obs/trace/sampling.h"

#include <gtest/gtest.h>

#include <set>

namespace supportd::obs::trace {
namespace {

// A trace id whose random part (the right-most 7 bytes) is `bits`, other bytes set.
TraceId id_with_random_bits(std::uint64_t bits) {
  TraceId id;
  for (auto& b : id.bytes)
    b = 0xab;
  for (int i = 15; i >= 9; --i) {
    id.bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(bits & 0xff);
    bits >>= 8;
  }
  return id;
}

TEST(RatioSampler, SamplesIdsUnderTheRatioOfTheRandomPart) {
  const RatioSampler quarter(0.25);
  const std::uint64_t threshold = std::uint64_t{1} << 54;  // 0.25 * 2^56
  EXPECT_TRUE(quarter.sample(nullptr, id_with_random_bits(0)));
  EXPECT_TRUE(quarter.sample(nullptr, id_with_random_bits(threshold - 1)));
  EXPECT_FALSE(quarter.sample(nullptr, id_with_random_bits(threshold)));
  EXPECT_FALSE(quarter.sample(nullptr, id_with_random_bits((std::uint64_t{1} << 56) - 1)));
}

TEST(RatioSampler, ZeroAndOneAreNeverAndAlways) {
  const RatioSampler never(0), always(1);
  for (std::uint64_t bits :
       {std::uint64_t{0}, std::uint64_t{1} << 40, (std::uint64_t{1} << 56) - 1}) {
    EXPECT_FALSE(never.sample(nullptr, id_with_random_bits(bits)));
    EXPECT_TRUE(always.sample(nullptr, id_with_random_bits(bits)));
  }
}

TEST(RatioSampler, ACallersDecisionStands) {
  SpanContext sampled, unsampled;
  sampled.flags = kSampledFlag;
  const RatioSampler never(0), always(1);
  EXPECT_TRUE(never.sample(&sampled, id_with_random_bits(0)));
  EXPECT_FALSE(always.sample(&unsampled, id_with_random_bits(0)));
}

TEST(RatioSampler, RandomIdsAreSampledAtAboutTheRatio) {
  const RatioSampler tenth(0.1);
  int sampled = 0;
  for (int i = 0; i < 100000; ++i)
    sampled += tenth.sample(nullptr, random_trace_id()) ? 1 : 0;
  // Binomial: mean 10000, standard deviation about 95; 10 of them either way.
  EXPECT_NEAR(sampled, 10000, 950);
}

TEST(KeepRule, ErrorThenSlowThenTheSampler) {
  EXPECT_EQ(decide_keep(false, true, 1, 1000), KeepReason::kError);
  EXPECT_EQ(decide_keep(true, true, 5000, 1000), KeepReason::kError);
  EXPECT_EQ(decide_keep(false, false, 1000.5, 1000), KeepReason::kSlow);
  EXPECT_EQ(decide_keep(false, false, 1000, 1000), KeepReason::kDropped);  // not over
  EXPECT_EQ(decide_keep(true, false, 10, 1000), KeepReason::kSampled);
  EXPECT_EQ(decide_keep(false, false, 1e9, 0), KeepReason::kDropped);  // 0: nothing is slow
  EXPECT_STREQ(keep_reason_name(KeepReason::kSlow), "slow");
}

TEST(Ids, AreNeverZeroAndDoNotRepeat) {
  std::set<std::string> traces, spans;
  for (int i = 0; i < 10000; ++i) {
    const TraceId trace = random_trace_id();
    const SpanId span = random_span_id();
    EXPECT_FALSE(trace.empty());
    EXPECT_FALSE(span.empty());
    traces.insert(trace.hex());
    spans.insert(span.hex());
  }
  EXPECT_EQ(traces.size(), 10000u);
  EXPECT_EQ(spans.size(), 10000u);
}

TEST(Ids, HexRoundTripsInLowerCaseOnly) {
  auto id = SpanId::from_hex("00f067aa0ba902b7");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->hex(), "00f067aa0ba902b7");
  EXPECT_FALSE(SpanId::from_hex("00F067AA0BA902B7"));
  EXPECT_FALSE(SpanId::from_hex("00f067aa0ba902b"));
  EXPECT_TRUE(SpanId::from_hex("0000000000000000")->empty());
}

}  // namespace
}  // namespace supportd::obs::trace
