// The formulas against a discrete-event simulation of the same queue (queue_simulation.h):
// seeded and bounded, so each case is one fixed sample. Exact formulas must fall within
// 4 standard errors of the simulation (batch means over 20 batches; a correct formula
// misses by more about once in 16000); approximations within their stated accuracy.
#include <gtest/gtest.h>

#include <cmath>

#include "plan/priority_classes.h"
#include "plan/queue_model.h"
#include "queue_simulation.h"

namespace supportd::plan {
namespace {

using testing::Estimate;
using testing::simulate;
using testing::SimulationSetup;

constexpr double kStandardErrors = 4;

void expect_within(double formula, const Estimate& simulated, const char* what) {
  EXPECT_GT(simulated.standard_error, 0) << what;
  EXPECT_LE(std::abs(formula - simulated.value), kStandardErrors * simulated.standard_error)
      << what << ": formula " << formula << ", simulation " << simulated.value << " +- "
      << simulated.standard_error;
}

struct Case {
  int servers;
  double arrival_rate, service_rate;
  std::int64_t arrivals;
};

TEST(SimulationTest, ExactMmcMatchesTheSimulation) {
  for (const Case& c : {Case{8, 150, 25, 300000}, Case{8, 180, 25, 600000}, Case{1, 0.7, 1, 400000},
                        Case{64, 1500, 25, 400000}}) {
    SCOPED_TRACE(::testing::Message() << c.servers << " servers at " << c.arrival_rate);
    Station s;
    s.arrival_rate = c.arrival_rate;
    s.service_rate = c.service_rate;
    s.servers = c.servers;
    const Performance p = *evaluate(s);
    SimulationSetup setup;
    setup.arrival_rate = c.arrival_rate;
    setup.servers = c.servers;
    setup.classes = {{1, 1 / c.service_rate, 1}};
    setup.arrivals = c.arrivals;
    const auto sim = simulate(setup);
    expect_within(p.p_wait(), sim.all.p_wait, "P(wait)");
    expect_within(p.mean_wait_s(), sim.all.mean_wait_s, "mean wait");
    for (double q : {0.95, 0.99}) {
      expect_within(q, testing::share_within(sim.all.waits, p.wait.quantile(q)),
                    "share within the formula's percentile");
    }
  }
}

// Allen-Cunneen is an approximation. Against this simulation (8 servers, gamma gaps and
// service), with Poisson arrivals it is within 10% of the mean wait for service CVs 0 to 1.5 at
// 75% and 90% utilisation; with other arrivals within 25% at 90%, but far off at 75% (for an
// arrival CV of 1.5-2 it gives 55-70% of the simulated wait; for 0.5, 1.3-3.4 times it): the
// plan says so in its notes (capacity_plan.cpp). Checked here where it is claimed to hold.
TEST(SimulationTest, AllenCunneenWhereItIsClose) {
  struct Approximation {
    double cv_a, cv_s, rate, accuracy;
  };
  for (const Approximation& a : std::vector<Approximation>{{1, 0, 150, 0.10},
                                                           {1, 0.5, 180, 0.10},
                                                           {1, 1.5, 150, 0.10},
                                                           {1.5, 0.5, 180, 0.25},
                                                           {2, 1.5, 180, 0.25},
                                                           {0.5, 1.5, 180, 0.25}}) {
    SCOPED_TRACE(::testing::Message() << "ca " << a.cv_a << ", cs " << a.cv_s << ", " << a.rate);
    Station s;
    s.arrival_rate = a.rate;
    s.service_rate = 25;
    s.servers = 8;
    s.arrival_cv = a.cv_a;
    s.service_cv = a.cv_s;
    const Performance p = *evaluate(s);
    EXPECT_TRUE(p.approximation);
    SimulationSetup setup;
    setup.arrival_rate = a.rate;
    setup.arrival_cv = a.cv_a;
    setup.servers = 8;
    setup.classes = {{1, 0.04, a.cv_s}};
    setup.arrivals = 400000;
    const Estimate sim = simulate(setup).all.mean_wait_s;
    EXPECT_LE(std::abs(p.mean_wait_s() - sim.value),
              a.accuracy * sim.value + kStandardErrors * sim.standard_error)
        << "formula " << p.mean_wait_s() << ", simulation " << sim.value;
  }
}

// Waits per class against the simulation of the same classes on `servers` servers (Poisson
// arrivals); only where Cobham's means are exact (and P(wait) too, with one service time).
void expect_priority_matches(const std::vector<ClassLoad>& classes, int servers) {
  auto waits = priority_waits(classes, servers, 1);
  ASSERT_TRUE(waits.ok());
  ASSERT_TRUE(waits->exact_means);
  SimulationSetup setup;
  setup.arrival_rate = 0;
  setup.servers = servers;
  setup.classes.clear();
  for (const ClassLoad& k : classes) {
    setup.arrival_rate += k.arrival_rate;
    setup.classes.push_back({k.arrival_rate, k.service_time_s, k.service_cv});
  }
  setup.arrivals = 600000;
  const auto sim = simulate(setup);
  for (std::size_t k = 0; k < classes.size(); ++k) {
    SCOPED_TRACE(classes[k].name);
    expect_within(waits->classes[k].mean_wait_s, sim.classes[k].mean_wait_s, "mean wait");
    if (servers > 1) expect_within(waits->classes[k].p_wait, sim.classes[k].p_wait, "P(wait)");
  }
}

// 8 servers, one exponential service time: the means and P(wait) are exact there.
TEST(SimulationTest, PriorityClassesOnManyServers) {
  expect_priority_matches({{"high", 15, 0.04, 1}, {"normal", 135, 0.04, 1}, {"low", 15, 0.04, 1}},
                          8);
}

// One server, classes of different service times and CVs (M/G/1): Cobham is exact.
TEST(SimulationTest, PriorityClassesOnOneServer) {
  expect_priority_matches(
      {{"high", 0.5, 0.4, 0.5}, {"normal", 1.0, 0.3, 1.0}, {"low", 0.3, 0.9, 1.5}}, 1);
}

// Continuous batching's shape: 8 slots whose total rate grows as k^0.7 (a batch of 8 completes
// 4.3 times what one sequence does, not 8 times). The birth-death chain is exact for it.
TEST(SimulationTest, LoadDependentServiceMatchesTheSimulation) {
  Station s;
  s.service_rate = 25;
  s.servers = 8;
  for (int k = 1; k <= 8; ++k)
    s.busy_rates.push_back(25 * std::pow(k, 0.7));
  for (double rate : {60.0, 90.0}) {
    SCOPED_TRACE(rate);
    s.arrival_rate = rate;
    const Performance p = *evaluate(s);
    EXPECT_FALSE(p.approximation);
    SimulationSetup setup;
    setup.arrival_rate = rate;
    setup.servers = 8;
    setup.busy_rates = s.busy_rates;
    setup.arrivals = 400000;
    const auto sim = simulate(setup);
    expect_within(p.p_wait(), sim.all.p_wait, "P(wait)");
    expect_within(p.mean_wait_s(), sim.all.mean_wait_s, "mean wait");
    expect_within(0.95, testing::share_within(sim.all.waits, p.wait.quantile(0.95)), "p95");
  }
}

}  // namespace
}  // namespace supportd::plan
