// The gateway's early refusals from the cluster's measured capacity, and what an engine node
// measures of itself for them.
#include <gtest/gtest.h>

#include "bus/cluster_admission.h"
#include "bus/rate_meter.h"

namespace supportd::bus {
namespace {

using sched::Priority;
using std::chrono::milliseconds;
using std::chrono::seconds;

AdmissionFacts two_busy_engines() {
  AdmissionFacts facts;
  facts.cluster.engines = 2;
  facts.cluster.slots = 2;
  facts.cluster.held = 2;
  facts.cluster.completion_rate = 4;  // requests per second, both together
  facts.cluster.queue_known = true;
  facts.queue_bound = 10;
  return facts;
}

TEST(ClusterAdmissionTest, AcceptsWhenAnEngineHasAFreeSlot) {
  AdmissionFacts facts = two_busy_engines();
  facts.cluster.held = 1;
  EXPECT_EQ(expected_wait_seconds(facts.cluster, Priority::kNormal), 0.0);
  EXPECT_FALSE(refuse(facts, Priority::kNormal, seconds(1)).has_value());
}

TEST(ClusterAdmissionTest, TheLinkDownIs503WithRetryAfter) {
  AdmissionFacts facts = two_busy_engines();
  facts.link_up = false;
  facts.link_down_for = milliseconds(1500);
  auto refusal = refuse(facts, Priority::kHigh, std::nullopt);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->code, ErrorCode::kUnavailable);
  EXPECT_GE(refusal->retry_after_s, 1);
  EXPECT_NE(refusal->message.find("NATS"), std::string::npos);
}

TEST(ClusterAdmissionTest, NoEngineIs503) {
  AdmissionFacts facts;
  auto refusal = refuse(facts, Priority::kHigh, std::nullopt);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->code, ErrorCode::kUnavailable);
  EXPECT_GE(refusal->retry_after_s, 1);
}

TEST(ClusterAdmissionTest, AFullClassQueueIs429WithRetryAfterFromTheRate) {
  AdmissionFacts facts = two_busy_engines();
  facts.cluster.queued = {0, 10, 0};
  auto refusal = refuse(facts, Priority::kNormal, std::nullopt);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->code, ErrorCode::kOverloaded);
  EXPECT_EQ(refusal->retry_after_s, 3);  // 10 queued at 4/s: 2.5 s, rounded up
  // The bound is per class: high has room.
  EXPECT_FALSE(refuse(facts, Priority::kHigh, std::nullopt).has_value());
}

TEST(ClusterAdmissionTest, ADeadlineThatCannotBeMetIs503) {
  AdmissionFacts facts = two_busy_engines();
  facts.cluster.queued = {1, 6, 0};
  // Normal waits behind 1 high + 6 normal, no free slot: 8 completions at 4/s = 2 s.
  ASSERT_TRUE(expected_wait_seconds(facts.cluster, Priority::kNormal).has_value());
  EXPECT_DOUBLE_EQ(*expected_wait_seconds(facts.cluster, Priority::kNormal), 2.0);
  auto refusal = refuse(facts, Priority::kNormal, seconds(1));
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->code, ErrorCode::kDeadline);
  EXPECT_EQ(refusal->retry_after_s, 2);
  EXPECT_FALSE(refuse(facts, Priority::kNormal, seconds(3)).has_value());
  // High waits only behind high: 2 completions, 0.5 s.
  EXPECT_FALSE(refuse(facts, Priority::kHigh, seconds(1)).has_value());
  // Without a deadline nothing is refused for time.
  EXPECT_FALSE(refuse(facts, Priority::kNormal, std::nullopt).has_value());
}

TEST(ClusterAdmissionTest, BeforeAnyMeasurementTheServiceTimeStandsIn) {
  AdmissionFacts facts = two_busy_engines();
  facts.cluster.completion_rate = 0;
  facts.cluster.queued = {0, 3, 0};
  EXPECT_FALSE(expected_wait_seconds(facts.cluster, Priority::kNormal).has_value());
  EXPECT_FALSE(refuse(facts, Priority::kNormal, milliseconds(1)).has_value());  // unknown: accept
  facts.cluster.service_seconds = 1.0;  // 2 slots / 1 s = 2 per second
  EXPECT_DOUBLE_EQ(*expected_wait_seconds(facts.cluster, Priority::kNormal), 2.0);
}

TEST(RateMeterTest, CountsCompletionsPerBusySecondOnly) {
  RateMeter meter;
  using Clock = RateMeter::Clock;
  const Clock::time_point t0{};
  auto at = [&](double s) {
    return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  meter.set_held(0, t0);
  EXPECT_EQ(meter.completion_rate(at(0)), 0);
  meter.set_held(1, at(0));
  meter.record_finish(at(0), at(1));  // busy 0..1
  meter.set_held(0, at(1));
  meter.set_held(1, at(100));  // 99 idle seconds do not count
  meter.record_finish(at(100), at(101));
  meter.record_finish(at(100), at(102));
  // Two completions after the first, over two busy seconds.
  EXPECT_DOUBLE_EQ(meter.completion_rate(at(102)), 1.0);
  EXPECT_GT(meter.service_seconds(), 1.0);
  // Busy with no completion since lowers the rate.
  EXPECT_LT(meter.completion_rate(at(104)), 1.0);
}

}  // namespace
}  // namespace supportd::bus
