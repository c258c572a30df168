// Erlang B and C, the exact M/M/c wait and the load-dependent chain against published worked
// examples (to the digits they publish), closed forms, and an independent log-space sum for
// thousands of servers.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "plan/erlang.h"
#include "plan/load_dependent.h"
#include "plan/queue_model.h"
#include "plan/staffing.h"
#include "reference_station.h"

namespace supportd::plan {
namespace {

// `value` to four significant digits, as a published table would print it.
std::string digits4(double value) {
  return fmt::format("{:#.4g}", value);
}

Performance mmc(double arrival_rate, double service_rate, int servers) {
  Station s;
  s.arrival_rate = arrival_rate;
  s.service_rate = service_rate;
  s.servers = servers;
  auto p = evaluate(s);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return p.ok() ? *p : Performance{};
}

// The NLU service: 8 instances of 25/s. At 150/s the exact mean wait is 7.14 ms, and
// 20% more traffic (180/s) makes it 35.1 ms: five times as long.
TEST(ErlangTest, ReferenceNluServiceWaits) {
  const Performance today = mmc(150, 25, 8);
  EXPECT_EQ(digits4(today.utilization), "0.7500");
  EXPECT_EQ(digits4(today.p_wait()), "0.3570");
  EXPECT_EQ(digits4(today.mean_wait_s() * 1e3), "7.140");
  const Performance surge = mmc(180, 25, 8);
  EXPECT_EQ(digits4(surge.utilization), "0.9000");
  EXPECT_EQ(digits4(surge.p_wait()), "0.7015");
  EXPECT_EQ(digits4(surge.mean_wait_s() * 1e3), "35.08");
  EXPECT_EQ(fmt::format("{:.1f}", surge.mean_wait_s() * 1e3), "35.1");
}

// Hillier & Lieberman, Introduction to Operations Research, the County Hospital emergency room:
// lambda = 2/h, mu = 3/h. One doctor: Wq = 0.6667 h; two: Wq = 0.04167 h, P(wait) = 0.1667.
TEST(ErlangTest, TextbookEmergencyRoom) {
  const Performance one = mmc(2, 3, 1);
  EXPECT_EQ(digits4(one.mean_wait_s()), "0.6667");
  EXPECT_EQ(digits4(one.p_wait()), "0.6667");
  const Performance two = mmc(2, 3, 2);
  EXPECT_EQ(digits4(two.mean_wait_s()), "0.04167");
  EXPECT_EQ(digits4(two.p_wait()), "0.1667");
}

// A call centre worked example published with Westbay's Erlang C calculator: 57 calls an hour
// of 1110 s on 21 agents answer 80.7% within 180 s; 80% within 20 s needs 23 agents.
TEST(ErlangTest, CallCentreServiceLevelAndAgents) {
  Station s;
  s.arrival_rate = 57.0 / 3600;
  s.service_rate = 1.0 / 1110;
  s.servers = 21;
  auto p = evaluate(s);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(fmt::format("{:.1f}", p->wait.within(180) * 100), "80.7");
  Targets t;
  t.wait_s = 20;
  t.service_level = 0.8;
  auto needed = servers_needed(s, t);
  ASSERT_TRUE(needed.ok()) << needed.error().message;
  EXPECT_EQ(*needed, 23);
}

// Erlang B tables (1% blocking): 10 lines carry 4.461 E, 20 carry 12.03, 50 carry 37.90,
// 100 carry 84.06. The loads are rounded to 4 digits, so the blocking is 1% to within 0.1%.
TEST(ErlangTest, ErlangBTableAtOnePercent) {
  for (const auto& [lines, load] :
       std::vector<std::pair<int, double>>{{10, 4.461}, {20, 12.03}, {50, 37.90}, {100, 84.06}}) {
    EXPECT_NEAR(erlang_b(lines, load), 0.01, 1e-5) << lines;
  }
}

// M/M/1: C = rho; M/M/2: C = 2 rho^2 / (1 + rho), for loads across the range.
TEST(ErlangTest, ClosedFormsForOneAndTwoServers) {
  for (double rho : {0.01, 0.3, 0.5, 0.9, 0.999}) {
    EXPECT_NEAR(erlang_c(1, rho), rho, 1e-12);
    EXPECT_NEAR(erlang_c(2, 2 * rho), 2 * rho * rho / (1 + rho), 1e-12);
  }
  EXPECT_EQ(erlang_b(0, 3), 1);
  EXPECT_EQ(erlang_c(4, 0), 0);
}

// C(c, a) from the definition, summed in log space with long doubles: an independent check.
double erlang_c_log_sum(int servers, double load) {
  long double log_term = 0, top = 0;  // log(a^k / k!)
  std::vector<long double> logs;
  for (int k = 0; k < servers; ++k) {
    logs.push_back(log_term);
    log_term +=
        std::log(static_cast<long double>(load)) - std::log(static_cast<long double>(k + 1));
  }
  const long double log_last = log_term - std::log1p(-static_cast<long double>(load) / servers);
  top = log_last;
  for (long double l : logs)
    top = std::max(top, l);
  long double sum = 0;
  for (long double l : logs)
    sum += std::exp(l - top);
  const long double last = std::exp(log_last - top);
  return static_cast<double>(last / (sum + last));
}

TEST(ErlangTest, StableForThousandsOfServers) {
  for (const auto& [servers, load] : std::vector<std::pair<int, double>>{
           {50, 45}, {1000, 950}, {5000, 4900}, {5000, 4999}, {20000, 19800}}) {
    const double c = erlang_c(servers, load);
    EXPECT_TRUE(std::isfinite(c) && c > 0 && c < 1) << servers;
    EXPECT_NEAR(c / erlang_c_log_sum(servers, load), 1, 1e-9) << servers << " " << load;
  }
  const double huge = erlang_c(kMaxServers, kMaxServers * 0.99);
  EXPECT_TRUE(std::isfinite(huge) && huge >= 0 && huge < 1);
}

// The birth-death chain with k mu for k busy is M/M/c: it must give Erlang C.
TEST(ErlangTest, LoadDependentChainReducesToErlangC) {
  for (const auto& [servers, load] :
       std::vector<std::pair<int, double>>{{1, 0.5}, {8, 6}, {8, 7.2}, {2000, 1950}}) {
    const double mu = 25;
    std::vector<double> rates;
    for (int k = 1; k <= servers; ++k)
      rates.push_back(k * mu);
    const WaitDistribution w = load_dependent_wait(load * mu, rates);
    EXPECT_NEAR(w.p_wait / erlang_c(servers, load), 1, 1e-9) << servers;
    EXPECT_NEAR(w.drain_rate, servers * mu - load * mu, 1e-9 * servers * mu);
  }
}

TEST(ErlangTest, WaitQuantilesInvertTheServiceLevel) {
  const Performance p = mmc(150, 25, 8);
  for (double q : {0.7, 0.95, 0.99, 0.999}) {
    const double t = p.wait.quantile(q);
    EXPECT_GT(t, 0);
    EXPECT_NEAR(p.wait.within(t), q, 1e-12);
  }
  // 64% of arrivals do not wait at all: the median wait is 0.
  EXPECT_EQ(p.wait.quantile(0.5), 0);
  EXPECT_NEAR(p.wait.within(0), 1 - p.p_wait(), 1e-15);
}

TEST(ErlangTest, AllenCunneenScalesTheWait) {
  Station s = testing::nlu_station();
  const double exact = evaluate(s)->mean_wait_s();
  s.service_cv = 0;  // M/D/c: half the M/M/c wait
  auto deterministic = evaluate(s);
  EXPECT_NEAR(deterministic->mean_wait_s(), exact / 2, 1e-15);
  EXPECT_TRUE(deterministic->approximation);
  s.arrival_cv = 0;  // D/D/c below capacity: nobody waits
  EXPECT_EQ(evaluate(s)->mean_wait_s(), 0);
  EXPECT_EQ(evaluate(s)->wait.quantile(0.99), 0);
  s.arrival_cv = 2;
  s.service_cv = 1.5;
  EXPECT_NEAR(evaluate(s)->mean_wait_s(), exact * (4 + 2.25) / 2, 1e-12);
}

TEST(ErlangTest, NoSteadyStateIsAnErrorNotInfinity) {
  const Station s = testing::nlu_station(200);
  auto p = evaluate(s);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(p.error().message.find("utilisation 1.000 is 1 or more"), std::string::npos)
      << p.error().message;
  for (double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    Station b = s;
    b.arrival_rate = bad;
    EXPECT_FALSE(evaluate(b).ok()) << bad;
    b = s;
    b.service_rate = bad;
    EXPECT_FALSE(evaluate(b).ok()) << bad;
  }
  Station b = s;
  b.servers = 0;
  EXPECT_FALSE(evaluate(b).ok());
  b = s;
  b.arrival_rate = 100;
  b.service_cv = -1;
  EXPECT_FALSE(evaluate(b).ok());
}

}  // namespace
}  // namespace supportd::plan
