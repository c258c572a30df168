// Servers needed for targets: the fewest that meet them (one fewer does not), more for more
// load or stricter targets, and errors rather than hangs or infinities for impossible asks.
#include <gtest/gtest.h>

#include <cmath>

#include "plan/queue_model.h"
#include "plan/staffing.h"
#include "reference_station.h"

namespace supportd::plan {
namespace {

Station nlu() {
  return testing::nlu_station();
}

Targets headroom(double max_utilization) {
  Targets t;
  t.max_utilization = max_utilization;
  return t;
}

// The reference plans for 30% headroom: 6 erlangs need 9 servers (67%), not 8 (75%).
TEST(StaffingTest, ReferenceHeadroom) {
  auto needed = servers_needed(nlu(), headroom(kDefaultMaxUtilization));
  ASSERT_TRUE(needed.ok());
  EXPECT_EQ(*needed, 9);
  // With no target at all: the fewest with a steady state (more than 6 erlangs).
  EXPECT_EQ(*servers_needed(nlu(), Targets{}), 7);
}

TEST(StaffingTest, TheAnswerIsTheFewestThatMeetTheTargets) {
  std::vector<Targets> asks(4);
  asks[0].mean_wait_s = 0.001;
  asks[1].wait_s = 0.005;
  asks[1].service_level = 0.95;
  asks[2].max_utilization = 0.5;
  asks[3] = asks[1];
  asks[3].mean_wait_s = 0.0002;
  asks[3].max_utilization = 0.8;
  for (const Targets& t : asks) {
    Station s = nlu();
    auto needed = servers_needed(s, t);
    ASSERT_TRUE(needed.ok()) << needed.error().message;
    s.servers = *needed;
    auto at = evaluate(s);
    ASSERT_TRUE(at.ok());
    EXPECT_TRUE(meets(*at, t)) << describe(t);
    s.servers = *needed - 1;
    auto below = evaluate(s);
    EXPECT_TRUE(!below.ok() || !meets(*below, t)) << describe(t);
  }
}

TEST(StaffingTest, MonotoneInLoadAndInTargets) {
  Targets level;
  level.wait_s = 0.01;
  level.service_level = 0.9;
  int previous = 0;
  for (double rate = 1; rate < 20000; rate *= 1.37) {
    Station s = nlu();
    s.arrival_rate = rate;
    const int needed = *servers_needed(s, level);
    EXPECT_GE(needed, previous) << rate;
    previous = needed;
  }
  previous = 0;
  for (double share : {0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 0.99999}) {
    Targets t = level;
    t.service_level = share;
    const int needed = *servers_needed(nlu(), t);
    EXPECT_GE(needed, previous) << share;
    previous = needed;
  }
  previous = 1 << 30;
  for (double wait : {0.0, 0.001, 0.01, 0.1, 1.0}) {
    Targets t;
    t.mean_wait_s = wait > 0 ? wait : 1e-6;
    const int needed = *servers_needed(nlu(), t);
    EXPECT_LE(needed, previous) << wait;
    previous = needed;
  }
  // More variable traffic needs at least as many servers.
  Station variable = nlu();
  variable.arrival_cv = 2;
  Targets mean;
  mean.mean_wait_s = 0.002;
  EXPECT_GE(*servers_needed(variable, mean), *servers_needed(nlu(), mean));
}

TEST(StaffingTest, ThousandsOfServers) {
  Station s;
  s.arrival_rate = 50000;
  s.service_rate = 10;  // 5000 erlangs
  Targets t;
  t.wait_s = 0.1;
  t.service_level = 0.99;
  auto needed = servers_needed(s, t);
  ASSERT_TRUE(needed.ok());
  EXPECT_GT(*needed, 5000);
  EXPECT_LT(*needed, 5300);  // square-root staffing: a + a few sqrt(a)
  s.servers = *needed;
  EXPECT_TRUE(meets(*evaluate(s), t));
}

TEST(StaffingTest, ImpossibleOrBadTargetsAreErrors) {
  Targets t;
  t.service_level = 0.8;  // within which wait?
  EXPECT_FALSE(servers_needed(nlu(), t).ok());
  for (double bad : {0.0, 1.0, -0.5, std::nan("")}) {
    Targets level;
    level.wait_s = 1;
    level.service_level = bad;
    EXPECT_FALSE(servers_needed(nlu(), level).ok()) << bad;
    EXPECT_FALSE(servers_needed(nlu(), headroom(bad)).ok()) << bad;
  }
  Targets mean;
  mean.mean_wait_s = 0;
  EXPECT_FALSE(servers_needed(nlu(), mean).ok());
  // Rates off by orders of magnitude: refused at once, not a scan to the end of time.
  Station huge = nlu();
  huge.arrival_rate = 1e12;
  auto needed = servers_needed(huge, headroom(0.7));
  ASSERT_FALSE(needed.ok());
  EXPECT_NE(needed.error().message.find("check the rates"), std::string::npos);
  Station tiny_headroom = nlu();
  tiny_headroom.arrival_rate = 1e6;
  EXPECT_FALSE(servers_needed(tiny_headroom, headroom(1e-3)).ok());
}

}  // namespace
}  // namespace supportd::plan
