// The fault injector on its own: what it refuses (naming the field), the cap on armed faults,
// which requests a fault hits (stage, class, tenant, percentage), expiry, the kill switch, and
// the count in supportd_faults_injected_total. Clocks are passed in; nothing sleeps.
#include "obs/faults/fault_injector.h"

#include <gtest/gtest.h>

#include "obs/metrics.h"

namespace supportd::obs::faults {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

FaultSpec decode_delay(int ms) {
  FaultSpec spec;
  spec.stage = Stage::kDecode;
  spec.kind = Kind::kDelay;
  spec.delay = milliseconds(ms);
  return spec;
}

TEST(FaultInjector, NamesAndParsesEveryStageAndKind) {
  for (int i = 0; i < kStageCount; ++i) {
    const auto stage = static_cast<Stage>(i);
    EXPECT_EQ(parse_stage(stage_name(stage)), stage);
  }
  for (int i = 0; i < kKindCount; ++i) {
    const auto kind = static_cast<Kind>(i);
    EXPECT_EQ(parse_kind(kind_name(kind)), kind);
  }
  EXPECT_FALSE(parse_stage("gpu"));
  EXPECT_FALSE(parse_kind("explode"));
  EXPECT_EQ(stage_names(), "http, queue, prefill, decode, retrieval, store, encoder");
}

TEST(FaultInjector, RefusesValuesOutOfRangeNamingTheField) {
  FaultInjector injector;
  const auto refused = [&](FaultSpec spec) {
    auto added = injector.add(spec);
    EXPECT_FALSE(added.ok());
    return added.ok() ? std::string() : added.error().param;
  };
  FaultSpec spec = decode_delay(100);
  spec.percent = 101;
  EXPECT_EQ(refused(spec), "percent");
  spec.percent = -1;
  EXPECT_EQ(refused(spec), "percent");
  EXPECT_EQ(refused(decode_delay(-5)), "delay_ms");
  EXPECT_EQ(refused(decode_delay(0)), "delay_ms");
  EXPECT_EQ(refused(decode_delay(600000)), "delay_ms");  // over the 60 s bound
  spec = decode_delay(100);
  spec.priority = "vip";
  EXPECT_EQ(refused(spec), "class");
  spec = decode_delay(100);
  spec.expires_after = seconds(0);
  EXPECT_EQ(refused(spec), "expires_s");
  spec.kind = Kind::kAbort;
  spec.expires_after = seconds(10);
  spec.status = 200;
  EXPECT_EQ(refused(spec), "status");
  spec = decode_delay(100);
  spec.stage = Stage::kQueue;
  spec.kind = Kind::kThrottle;
  spec.tokens_per_second = 5;
  EXPECT_EQ(refused(spec), "kind");  // a throttle is for decode only
  spec.stage = Stage::kDecode;
  spec.tokens_per_second = 0;
  EXPECT_EQ(refused(spec), "tokens_per_second");
  EXPECT_TRUE(injector.list().empty());
}

TEST(FaultInjector, HitsOnlyItsStageClassAndTenant) {
  FaultInjector injector;
  FaultSpec spec = decode_delay(250);
  spec.priority = "low";
  spec.tenant = "shop";
  auto added = injector.add(spec);
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_FALSE(injector.decide(Stage::kPrefill, "low", "shop"));
  EXPECT_FALSE(injector.decide(Stage::kDecode, "normal", "shop"));
  EXPECT_FALSE(injector.decide(Stage::kDecode, "low", "other"));
  EXPECT_FALSE(injector.decide(Stage::kDecode, "", "shop"));  // class not known yet
  auto hit = injector.decide(Stage::kDecode, "low", "shop");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->fault, added->id);
  EXPECT_EQ(hit->kind, Kind::kDelay);
  EXPECT_EQ(hit->delay, milliseconds(250));
  EXPECT_EQ(injector.list().at(0).injected, 1);
}

TEST(FaultInjector, ThePercentageDecidesHowManyRequestsAreHit) {
  FaultInjector injector;
  FaultSpec none = decode_delay(10);
  none.percent = 0;
  ASSERT_TRUE(injector.add(none).ok());
  for (int i = 0; i < 1000; ++i)
    EXPECT_FALSE(injector.decide(Stage::kDecode, "normal", "t"));
  ASSERT_EQ(injector.clear(), 1u);
  FaultSpec half = decode_delay(10);
  half.percent = 50;
  ASSERT_TRUE(injector.add(half).ok());
  int hits = 0;
  for (int i = 0; i < 4000; ++i)
    hits += injector.decide(Stage::kDecode, "normal", "t") ? 1 : 0;
  // Binomial(4000, 0.5): 2000 +- 32 (one sigma); the bounds are 12 sigma away.
  EXPECT_GT(hits, 1600);
  EXPECT_LT(hits, 2400);
}

TEST(FaultInjector, FaultsExpireAndTheCapCountsOnlyLiveOnes) {
  FaultLimits limits;
  limits.max_faults = 2;
  FaultInjector injector(limits);
  const auto start = SteadyClock::now();
  FaultSpec spec = decode_delay(10);
  spec.expires_after = seconds(30);
  ASSERT_TRUE(injector.add(spec, start).ok());
  ASSERT_TRUE(injector.add(spec, start).ok());
  auto third = injector.add(spec, start);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().code, ErrorCode::kOverloaded);
  EXPECT_TRUE(injector.decide(Stage::kDecode, "normal", "t", start + seconds(29)));
  EXPECT_FALSE(injector.decide(Stage::kDecode, "normal", "t", start + seconds(30)));
  EXPECT_TRUE(injector.list(start + seconds(31)).empty());
  EXPECT_TRUE(injector.add(spec, start + seconds(31)).ok());  // room again
}

TEST(FaultInjector, TheKillSwitchAndRemovalDisarm) {
  FaultInjector injector;
  auto first = injector.add(decode_delay(10));
  FaultSpec abort_spec;
  abort_spec.stage = Stage::kQueue;
  abort_spec.kind = Kind::kAbort;
  abort_spec.status = 503;
  auto second = injector.add(abort_spec);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first->id, second->id);
  EXPECT_TRUE(injector.remove(first->id));
  EXPECT_FALSE(injector.remove(first->id));
  EXPECT_FALSE(injector.decide(Stage::kDecode, "normal", "t"));
  auto abort_hit = injector.decide(Stage::kQueue, "normal", "t");
  ASSERT_TRUE(abort_hit);
  EXPECT_EQ(abort_hit->status, 503);
  EXPECT_EQ(injector.clear(), 1u);
  EXPECT_FALSE(injector.decide(Stage::kQueue, "normal", "t"));
  EXPECT_EQ(injector.clear(), 0u);
}

TEST(FaultInjector, InjectionsAreCountedByStageAndKind) {
  Registry registry;
  FaultInjector injector({}, &registry);
  ASSERT_TRUE(injector.add(decode_delay(10)).ok());
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(injector.decide(Stage::kDecode, "high", "t"));
  const std::string text = registry.expose();
  EXPECT_NE(text.find("supportd_faults_injected_total{stage=\"decode\",kind=\"delay\"} 3"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("supportd_faults_injected_total{stage=\"queue\",kind=\"abort\"} 0"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace supportd::obs::faults
