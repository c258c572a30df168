// The scheduling policy without a model: ordering, aging, tenant shares, dynamic batching.
#include "sched/scheduler.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>

namespace supportd::sched {
namespace {

using std::chrono::milliseconds;
const Clock::time_point t0 = Clock::time_point{} + std::chrono::hours(1);

Ticket ticket(std::uint64_t id, Priority p, Clock::time_point arrived = t0,
              std::string tenant = "t") {
  return Ticket{id, p, std::move(tenant), arrived, 10};
}

std::uint64_t take(Scheduler& s, Clock::time_point now, int running = 0) {
  const Ticket* next = s.next(now, running);
  if (next == nullptr) return 0;
  return s.pop(next->id).id;
}

TEST(Scheduler, HigherClassesFirstThenArrivalOrder) {
  Scheduler s;
  s.push(ticket(1, Priority::kLow, t0));
  s.push(ticket(2, Priority::kNormal, t0 + milliseconds(1)));
  s.push(ticket(3, Priority::kHigh, t0 + milliseconds(2)));
  s.push(ticket(4, Priority::kNormal, t0 + milliseconds(3)));
  const auto now = t0 + milliseconds(10);
  EXPECT_EQ(take(s, now), 3u);
  EXPECT_EQ(take(s, now), 2u);
  EXPECT_EQ(take(s, now), 4u);
  EXPECT_EQ(take(s, now), 1u);
  EXPECT_EQ(take(s, now), 0u);
}

TEST(Scheduler, AgingLiftsAWaitingRequestOneClassPerPeriod) {
  SchedulerOptions options;
  options.aging = milliseconds(1000);
  Scheduler s(options);
  s.push(ticket(1, Priority::kLow, t0));
  EXPECT_EQ(s.effective_priority(*s.next(t0, 0), t0 + milliseconds(999)), Priority::kLow);
  EXPECT_EQ(s.effective_priority(*s.next(t0, 0), t0 + milliseconds(1000)), Priority::kNormal);
  EXPECT_EQ(s.effective_priority(*s.next(t0, 0), t0 + milliseconds(5000)), Priority::kHigh);
  // An old low request now competes with a fresh high one and wins by arrival.
  s.push(ticket(2, Priority::kHigh, t0 + milliseconds(4000)));
  EXPECT_EQ(take(s, t0 + milliseconds(4500)), 1u);
}

TEST(Scheduler, LowIsDelayedButNeverStarvedUnderAFloodOfHigh) {
  SchedulerOptions options;
  options.aging = milliseconds(100);
  Scheduler s(options);
  s.push(ticket(1, Priority::kLow, t0));
  auto now = t0;
  std::uint64_t next_id = 2;
  int served_before_low = 0;
  for (int step = 0; step < 1000; ++step) {
    now += milliseconds(10);
    s.push(ticket(next_id++, Priority::kHigh, now));  // a new high request every step
    if (take(s, now) == 1u) break;
    ++served_before_low;
  }
  EXPECT_GT(served_before_low, 0);   // it was delayed...
  EXPECT_LT(served_before_low, 60);  // ...and started within about two aging periods
}

// Simulates slots running requests of fixed cost; returns the tokens each tenant received.
std::map<std::string, double> simulate_tenants(const std::map<std::string, double>& weights,
                                               int slots, int steps, int request_tokens) {
  SchedulerOptions options;
  options.tenant_weights = weights;
  options.aging = milliseconds(0);
  Scheduler s(options);
  std::uint64_t id = 1;
  std::map<std::uint64_t, std::string> owner;
  for (const auto& [tenant, w] : weights) {
    for (int i = 0; i < slots * 4; ++i) {  // a deep backlog for every tenant
      owner[id] = tenant;
      s.push(ticket(id++, Priority::kNormal, t0, tenant));
    }
  }
  struct Running {
    std::string tenant;
    int left;
  };
  std::vector<Running> running;
  std::map<std::string, double> served;
  auto now = t0;
  for (int step = 0; step < steps; ++step) {
    now += milliseconds(1);
    while (static_cast<int>(running.size()) < slots) {
      const std::uint64_t next = take(s, now, static_cast<int>(running.size()));
      if (next == 0) break;
      const std::string tenant = owner[next];
      running.push_back({tenant, request_tokens});
      owner[id] = tenant;  // keep the backlog deep
      s.push(ticket(id++, Priority::kNormal, now, tenant));
    }
    for (auto& r : running) {
      s.charge(r.tenant, 1);
      served[r.tenant] += 1;
      --r.left;
    }
    std::erase_if(running, [](const Running& r) { return r.left == 0; });
  }
  return served;
}

TEST(Scheduler, TenantsShareEngineTokensByWeight) {
  const auto served = simulate_tenants({{"a", 1}, {"b", 3}}, 4, 20000, 50);
  const double total = served.at("a") + served.at("b");
  EXPECT_NEAR(served.at("a") / total, 0.25, 0.05 * 0.25);
  EXPECT_NEAR(served.at("b") / total, 0.75, 0.05 * 0.75);
}

TEST(Scheduler, AFloodingTenantCannotStarveAnother) {
  const auto served = simulate_tenants({{"flood", 1}, {"small", 1}, {"third", 2}}, 8, 20000, 30);
  const double total = served.at("flood") + served.at("small") + served.at("third");
  EXPECT_NEAR(served.at("small") / total, 0.25, 0.05 * 0.25);
  EXPECT_NEAR(served.at("third") / total, 0.50, 0.05 * 0.50);
}

TEST(Scheduler, AReturningTenantDoesNotGetCreditForIdleTime) {
  SchedulerOptions options;
  options.aging = milliseconds(0);
  Scheduler s(options);
  s.charge("busy", 1000);
  s.push(ticket(1, Priority::kNormal, t0, "busy"));
  s.push(ticket(2, Priority::kNormal, t0, "new"));
  EXPECT_GE(s.virtual_time("new"), s.virtual_time("busy"));
}

TEST(Scheduler, DynamicBatchingWaitsForAFullBatchOrTheWindow) {
  SchedulerOptions options;
  options.batching = BatchingMode::kDynamic;
  options.batch_max = 3;
  options.batch_window = milliseconds(40);
  Scheduler s(options);
  s.push(ticket(1, Priority::kNormal, t0));
  s.push(ticket(2, Priority::kNormal, t0 + milliseconds(5)));
  EXPECT_EQ(s.next(t0 + milliseconds(10), 0), nullptr);  // collecting
  EXPECT_NE(s.next(t0 + milliseconds(40), 0), nullptr);  // window over
  EXPECT_EQ(take(s, t0 + milliseconds(40)), 1u);
  EXPECT_EQ(take(s, t0 + milliseconds(40), 1), 2u);  // the rest of this batch
  s.push(ticket(3, Priority::kNormal, t0 + milliseconds(41)));
  EXPECT_EQ(s.next(t0 + milliseconds(200), 2), nullptr);  // the batch runs to completion first
  s.push(ticket(4, Priority::kNormal, t0 + milliseconds(42)));
  s.push(ticket(5, Priority::kNormal, t0 + milliseconds(43)));
  EXPECT_NE(s.next(t0 + milliseconds(44), 0), nullptr);  // full: no need to wait
}

TEST(Scheduler, EarlyReleaseStartsASmallBatchAtOnce) {
  SchedulerOptions options;
  options.batching = BatchingMode::kDynamic;
  options.batch_max = 8;
  options.batch_window = milliseconds(40);
  options.early_release_count = 2;
  options.early_release_after = milliseconds(5);
  Scheduler s(options);
  s.push(ticket(1, Priority::kNormal, t0));
  EXPECT_EQ(s.next(t0 + milliseconds(4), 0), nullptr);
  EXPECT_NE(s.next(t0 + milliseconds(5), 0), nullptr);  // fewer than 2 arrived in 5 ms: go
}

TEST(Scheduler, EraseRemovesAWaitingRequest) {
  Scheduler s;
  s.push(ticket(1, Priority::kNormal));
  s.push(ticket(2, Priority::kNormal, t0 + milliseconds(1)));
  EXPECT_TRUE(s.erase(1));
  EXPECT_FALSE(s.erase(1));
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.size(Priority::kNormal), 1u);
  EXPECT_EQ(take(s, t0 + milliseconds(2)), 2u);
}

}  // namespace
}  // namespace supportd::sched
