// Waits per class under non-preemptive priority: one class is the FIFO queue, the work is
// conserved (Kleinrock's law for M/G/1, exactly; the same identity for c servers), higher
// classes wait less, and in overload the classes that still fit keep a finite wait.
#include <gtest/gtest.h>

#include <cmath>

#include "plan/priority_classes.h"
#include "plan/queue_model.h"
#include "reference_station.h"

namespace supportd::plan {
namespace {

TEST(PriorityTest, OneClassIsTheFifoQueue) {
  for (const auto& [servers, rate, cv_a, cv_s] :
       std::vector<std::tuple<int, double, double, double>>{
           {8, 150, 1, 1}, {1, 20, 1, 1}, {3, 2.5, 1.7, 0.4}, {64, 1500, 0.8, 2}}) {
    Station s;
    s.arrival_rate = rate;
    s.service_rate = 25;
    s.servers = servers;
    s.arrival_cv = cv_a;
    s.service_cv = cv_s;
    const Performance fifo = *evaluate(s);
    auto waits = priority_waits({{"normal", rate, 1.0 / 25, cv_s}}, servers, cv_a);
    ASSERT_TRUE(waits.ok()) << waits.error().message;
    const ClassWait& w = waits->classes.front();
    EXPECT_NEAR(w.mean_wait_s / fifo.mean_wait_s(), 1, 1e-12) << servers;
    EXPECT_NEAR(w.p_wait, fifo.p_wait(), 1e-12);
    EXPECT_NEAR(w.wait_p95_s, fifo.wait.quantile(0.95), 1e-12);
    EXPECT_NEAR(w.wait_p99_s, fifo.wait.quantile(0.99), 1e-12);
  }
}

// M/G/1 with classes of different service times and CVs: Cobham's means are exact, and
// Kleinrock's conservation law holds: sum of rho_k W_k = rho W0 / (1 - rho), with
// W0 = sum of lambda_k E[S_k^2] / 2 computed here from the classes directly.
TEST(PriorityTest, KleinrockConservationForOneServer) {
  const std::vector<ClassLoad> classes{
      {"high", 0.5, 0.4, 0.5}, {"normal", 1.0, 0.3, 1.0}, {"low", 0.3, 0.9, 2.0}};
  auto waits = priority_waits(classes, 1, 1);
  ASSERT_TRUE(waits.ok());
  EXPECT_TRUE(waits->exact_means);
  double rho = 0, w0 = 0, weighted = 0;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    const ClassLoad& c = classes[k];
    rho += c.arrival_rate * c.service_time_s;
    w0 += c.arrival_rate * c.service_time_s * c.service_time_s * (1 + c.service_cv * c.service_cv) /
          2;
    weighted += c.arrival_rate * c.service_time_s * waits->classes[k].mean_wait_s;
  }
  EXPECT_NEAR(weighted, rho * w0 / (1 - rho), 1e-12);
  // Cobham for the first class: W0 / (1 - rho_1).
  EXPECT_NEAR(waits->classes[0].mean_wait_s, w0 / (1 - 0.5 * 0.4), 1e-12);
}

// c servers, one service time: the mean wait over all arrivals is the FIFO queue's (the
// number waiting does not depend on the order served), and the order favours higher classes.
TEST(PriorityTest, ConservedAndOrderedForManyServers) {
  const double fifo = evaluate(testing::nlu_station())->mean_wait_s();
  auto waits =
      priority_waits({{"high", 15, 0.04, 1}, {"normal", 120, 0.04, 1}, {"low", 15, 0.04, 1}}, 8, 1);
  ASSERT_TRUE(waits.ok());
  EXPECT_TRUE(waits->exact_means);
  double weighted = 0;
  for (const ClassWait& w : waits->classes)
    weighted += w.arrival_rate * w.mean_wait_s;
  EXPECT_NEAR(weighted / 150, fifo, 1e-12);
  EXPECT_LT(waits->classes[0].mean_wait_s, waits->classes[1].mean_wait_s);
  EXPECT_LT(waits->classes[1].mean_wait_s, waits->classes[2].mean_wait_s);
  EXPECT_LT(waits->classes[0].wait_p99_s, waits->classes[2].wait_p99_s);
  // Different service times: an approximation, still conserving sum of rho_k W_k.
  auto mixed = priority_waits({{"high", 15, 0.02, 1}, {"normal", 120, 0.05, 1}}, 8, 1);
  ASSERT_TRUE(mixed.ok());
  EXPECT_FALSE(mixed->exact_means);
}

// "What does VIP wait at 5x?": 10% VIP on 8 servers at 5x the NLU load is 3.75x the capacity
// overall, but VIP alone uses 37.5%: VIP still has a finite wait; the rest have none.
TEST(PriorityTest, VipKeepsAFiniteWaitInOverload) {
  auto waits = priority_waits({{"high", 75, 0.04, 1}, {"normal", 675, 0.04, 1}}, 8, 1);
  ASSERT_TRUE(waits.ok());
  EXPECT_GT(waits->utilization, 1);
  const ClassWait& vip = waits->classes[0];
  EXPECT_TRUE(vip.stable);
  EXPECT_EQ(vip.p_wait, 1);
  // Always busy: W0 = E[S] / c = 5 ms, over (1 - 0.375).
  EXPECT_NEAR(vip.mean_wait_s, 0.005 / (1 - 0.375), 1e-12);
  EXPECT_FALSE(waits->classes[1].stable);
}

TEST(PriorityTest, BadClassesAreErrors) {
  EXPECT_FALSE(priority_waits({{"normal", 0, 0.04, 1}}, 8, 1).ok());
  EXPECT_FALSE(priority_waits({{"normal", -1, 0.04, 1}}, 8, 1).ok());
  EXPECT_FALSE(priority_waits({{"normal", 1, 0, 1}}, 8, 1).ok());
  EXPECT_FALSE(priority_waits({{"normal", 1, 0.04, -1}}, 8, 1).ok());
  EXPECT_FALSE(priority_waits({{"normal", 1, 0.04, 1}}, 0, 1).ok());
  EXPECT_FALSE(priority_waits({{"normal", std::nan(""), 0.04, 1}}, 8, 1).ok());
}

}  // namespace
}  // namespace supportd::plan
