// The continuous-batching simulation (plan/batching_model.h): one slot is an M/D/1 queue
// (Pollaczek-Khinchine's closed form), a full engine's rate follows from its iterations by
// hand, prompts go in chunks of the step's budget, and a plan built on it reads its waits.
#include "plan/batching_model.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>

#include "plan/capacity_plan.h"
#include "plan/plan_report.h"

namespace supportd::plan {
namespace {

BatchingModel one_slot() {
  BatchingModel m;
  m.slots = 1;
  m.fixed_ms = 10;  // every iteration 10 ms, whatever it carries
  m.prompt_tokens = 8;
  m.output_tokens = 5;  // one prompt iteration and four decode iterations: 50 ms
  return m;
}

// Four slots; iterations of 2 ms + 0.5 ms per decode token + 0.1 ms per prompt token; requests
// of 32 prompt tokens and 10 generated.
BatchingModel four_slots() {
  BatchingModel m;
  m.slots = 4;
  m.fixed_ms = 2;
  m.per_decode_token_ms = 0.5;
  m.per_prompt_token_ms = 0.1;
  m.prompt_tokens = 32;
  m.output_tokens = 10;
  return m;
}

TEST(BatchingModel, OneSlotIsAnMD1Queue) {
  const BatchingModel m = one_slot();
  EXPECT_NEAR(batching_capacity(m), 20, 1e-9);
  // rho 0.6 with a constant 50 ms service: Pollaczek-Khinchine's mean wait
  // rho s / (2 (1 - rho)) = 37.5 ms, and P(wait) = rho.
  auto queue = simulate_batching(m, 12);
  ASSERT_TRUE(queue.ok()) << queue.error().message;
  EXPECT_EQ(queue->requests, 100000);
  ASSERT_EQ(queue->waits.size(), 100000u);
  EXPECT_TRUE(std::is_sorted(queue->waits.begin(), queue->waits.end()));
  EXPECT_NEAR(queue->mean_wait_s, 0.0375, 0.0375 * 0.05);
  EXPECT_NEAR(queue->p_wait, 0.6, 0.01);
  EXPECT_NEAR(queue->service_mean_s, 0.05, 1e-9);
  EXPECT_NEAR(queue->ttft_mean_s, queue->mean_wait_s + 0.010, 1e-9);

  // Seeded: the same inputs, the same numbers; another seed, another sample.
  auto again = simulate_batching(m, 12);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->waits, queue->waits);
  SimulationOptions other;
  other.seed = 2;
  auto reseeded = simulate_batching(m, 12, other);
  ASSERT_TRUE(reseeded.ok());
  EXPECT_NE(reseeded->mean_wait_s, queue->mean_wait_s);
}

TEST(BatchingModel, AFullEnginesRateFollowsFromItsIterations) {
  // Four slots kept full start together: one iteration computes the four 32-token prompts
  // (2 + 0.1 x 128 = 14.8 ms), then nine decode iterations of four tokens (2 + 0.5 x 4 = 4 ms
  // each): four requests every 50.8 ms.
  const BatchingModel m = four_slots();
  EXPECT_NEAR(batching_capacity(m), 4 / 0.0508, 1e-6);

  // A prompt longer than the budget goes in chunks: 100 tokens in chunks of 16 take seven
  // iterations (the last of 4 tokens gives the first token), then two decode iterations.
  BatchingModel chunked;
  chunked.slots = 1;
  chunked.step_tokens = 16;
  chunked.fixed_ms = 1;
  chunked.prompt_tokens = 100;
  chunked.output_tokens = 3;
  EXPECT_NEAR(batching_capacity(chunked), 1000.0 / 9, 1e-6);
}

TEST(BatchingModel, WaitsGrowWithTheLoadAndTheCapacityIsRefused) {
  const BatchingModel m = four_slots();
  const double capacity = batching_capacity(m);
  double previous = -1;
  for (double utilization : {0.3, 0.6, 0.8}) {
    auto queue = simulate_batching(m, utilization * capacity);
    ASSERT_TRUE(queue.ok()) << queue.error().message;
    EXPECT_GT(queue->mean_wait_s, previous) << utilization;
    previous = queue->mean_wait_s;
  }
  auto over = simulate_batching(m, capacity);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().param, "utilization");
  EXPECT_FALSE(simulate_batching(m, 0).ok());
}

TEST(BatchingModel, ASplitCostsOnlyIterationsHoldingBothKindsOfTokens) {
  // One slot never decodes beside a prompt: a split's cost changes nothing.
  BatchingModel alone = one_slot();
  alone.per_split_ms = 100;
  alone.split_tokens = 1;
  EXPECT_NEAR(batching_capacity(alone), 20, 1e-9);

  // Four slots under Poisson arrivals: prompts start beside decoding sequences, and those
  // iterations cost the split's 5 ms more; with a split size above any iteration's tokens,
  // none is split and the numbers are exactly those without a split cost.
  const BatchingModel plain = four_slots();
  BatchingModel split = plain;
  split.per_split_ms = 5;
  split.split_tokens = 16;
  BatchingModel never = split;
  never.split_tokens = 1000;
  const double rate = 0.6 * batching_capacity(plain);
  auto without = simulate_batching(plain, rate);
  auto with = simulate_batching(split, rate);
  auto unsplit = simulate_batching(never, rate);
  ASSERT_TRUE(without.ok() && with.ok() && unsplit.ok());
  EXPECT_GT(with->mean_wait_s, without->mean_wait_s * 1.1);
  EXPECT_GT(with->ttft_mean_s, without->ttft_mean_s);
  EXPECT_EQ(unsplit->waits, without->waits);
}

TEST(BatchingModel, PairsOfDecodeTokensMakeFullBatchesDearer) {
  // One slot never decodes two tokens at once: a pair cost changes nothing.
  BatchingModel alone = one_slot();
  alone.per_decode_pair_ms = 100;
  EXPECT_NEAR(batching_capacity(alone), 20, 1e-9);

  // Four slots kept full: the prompts' iteration as before (14.8 ms, no decode tokens), each of
  // the nine decode iterations 4 ms + 6 pairs x 0.2 ms = 5.2 ms: four requests every 61.6 ms.
  BatchingModel convex = four_slots();
  convex.per_decode_pair_ms = 0.2;
  EXPECT_NEAR(batching_capacity(convex), 4 / 0.0616, 1e-6);
  // The same load waits longer on the convex engine.
  const double rate = 0.6 * batching_capacity(convex);
  auto linear = simulate_batching(four_slots(), rate);
  auto dearer = simulate_batching(convex, rate);
  ASSERT_TRUE(linear.ok() && dearer.ok());
  EXPECT_GT(dearer->mean_wait_s, linear->mean_wait_s);
}

TEST(BatchingModel, LongRequestsAreSimulatedInFewerNumbers) {
  // 200,000 tokens each: within a budget of 10 million slot-iterations, 200 requests (the
  // least measured) rather than 100,000, and the wait still a steady state's.
  BatchingModel m = one_slot();
  m.fixed_ms = 0.01;
  m.output_tokens = 200000;
  SimulationOptions options;
  options.max_work = 1e7;
  auto queue = simulate_batching(m, 0.25 * batching_capacity(m), options);
  ASSERT_TRUE(queue.ok()) << queue.error().message;
  EXPECT_EQ(queue->requests, 200);
  EXPECT_EQ(queue->waits.size(), 200u);
  EXPECT_NEAR(queue->service_mean_s, 2.0, 1e-6);  // 200,000 iterations of 10 us
  options.requests = 0;
  EXPECT_FALSE(simulate_batching(m, 0.25 * batching_capacity(m), options).ok());
}

TEST(BatchingModel, BadModelsNameTheirFlag) {
  const auto param_of = [](BatchingModel m) {
    auto status = check_batching(m);
    return status ? std::string("ok") : status.error().param;
  };
  EXPECT_EQ(param_of(one_slot()), "ok");
  BatchingModel m = one_slot();
  m.per_decode_token_ms = -1;
  EXPECT_EQ(param_of(m), "step-cost");
  m = one_slot();
  m.fixed_ms = 0;
  EXPECT_EQ(param_of(m), "step-cost");  // an iteration that costs nothing
  m = one_slot();
  m.per_split_ms = -0.5;
  EXPECT_EQ(param_of(m), "step-cost");
  m = one_slot();
  m.per_decode_pair_ms = std::nan("");
  EXPECT_EQ(param_of(m), "step-cost");
  m = one_slot();
  m.split_tokens = -1;
  EXPECT_EQ(param_of(m), "split-tokens");
  m = one_slot();
  m.slots = 0;
  EXPECT_EQ(param_of(m), "servers");
  m = one_slot();
  m.step_tokens = 8;
  EXPECT_EQ(param_of(m), "step-tokens");
  m = one_slot();
  m.prompt_tokens = 0;
  EXPECT_EQ(param_of(m), "prompt-tokens");
  m = one_slot();
  m.output_tokens = 1e9;
  EXPECT_EQ(param_of(m), "output-tokens");
}

TEST(BatchingModel, APlanReadsTheSimulatedWaits) {
  const BatchingModel engine = four_slots();
  Station base;
  base.arrival_rate = 0.5 * batching_capacity(engine);
  auto station = with_batching(base, engine);
  ASSERT_TRUE(station.ok()) << station.error().message;
  EXPECT_EQ(station->servers, 4);
  EXPECT_NEAR(station->service_rate * 4, station->capacity(), 1e-9);

  PlanInputs inputs;
  inputs.station = *station;
  inputs.growth = {1, 1.5, 3};
  auto plan = make_plan(inputs);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const Performance& p = plan->performance;
  EXPECT_NE(p.model.find("simulated"), std::string::npos) << p.model;
  EXPECT_TRUE(p.approximation);
  ASSERT_TRUE(p.sampled_waits);
  ASSERT_TRUE(p.ttft_mean_s.has_value());
  EXPECT_GT(*p.ttft_mean_s, p.mean_wait_s());
  EXPECT_LE(p.wait_quantile(0.5), p.wait_quantile(0.95));
  EXPECT_LE(p.wait_quantile(0.95), p.wait_quantile(0.99));
  EXPECT_NEAR(p.wait_within(p.wait_quantile(0.95)), 0.95, 0.01);
  EXPECT_NEAR(p.utilization, 0.5, 1e-9);
  // At 1.5x a wait; at 3x the engine is overloaded (no steady state, no waits).
  ASSERT_EQ(plan->growth.size(), 3u);
  ASSERT_TRUE(plan->growth[1].performance.has_value());
  EXPECT_GT(plan->growth[1].performance->mean_wait_s(), p.mean_wait_s());
  EXPECT_FALSE(plan->growth[2].performance.has_value());
  EXPECT_GT(plan->growth[2].servers_needed, 4);

  const auto json = boost::json::parse(plan_json(*plan));
  EXPECT_GT(json.at("ttft_mean_s").to_number<double>(), 0);
  EXPECT_NE(plan_text(*plan).find("one engine of 4 slots simulated"), std::string::npos);

  // The engine's slots are the plan's servers.
  Station mismatched = *station;
  mismatched.servers = 8;
  EXPECT_FALSE(check_station(mismatched).ok());
}

TEST(BatchingModel, AMachineWhoseSpeedVariesWaitsLongerThanOneAtItsMeanSpeed) {
  // A trace of 1s is a steady machine: the same sample.
  BatchingModel steady = one_slot();
  BatchingModel ones = steady;
  ones.speed_trace = {1, 1};
  auto a = simulate_batching(steady, 12);
  auto b = simulate_batching(ones, 12);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->waits, b->waits);

  // Twice as slow throughout: half the capacity, and M/D/1 with a 100 ms service at rho 0.6
  // waits 75 ms.
  BatchingModel slow = steady;
  slow.speed_trace = {2};
  EXPECT_NEAR(batching_capacity(slow), 10, 1e-9);
  auto halved = simulate_batching(slow, 6);
  ASSERT_TRUE(halved.ok());
  EXPECT_NEAR(halved->mean_wait_s, 0.075, 0.075 * 0.05);
  EXPECT_NEAR(halved->service_mean_s, 0.1, 1e-9);

  // 20% faster for 10 s, then 20% slower for 10 s: the capacity is the windows' average
  // (20 x (1/0.8 + 1/1.2) / 2), and the queue built in the slow windows makes the mean wait
  // longer than the steady machine's at the same rate (37.5 ms), though the fast windows more
  // than make up the capacity.
  BatchingModel varying = steady;
  varying.speed_trace = {0.8, 1.2};
  varying.speed_window_s = 10;
  EXPECT_NEAR(batching_capacity(varying), 20 * (1 / 0.8 + 1 / 1.2) / 2, 1e-9);
  auto uneven = simulate_batching(varying, 12);
  ASSERT_TRUE(uneven.ok());
  EXPECT_GT(uneven->mean_wait_s, 1.2 * a->mean_wait_s);
  // The service varies with the window it falls in: between the fast and the slow one's.
  EXPECT_GT(uneven->service_mean_s, 0.8 * 0.05);
  EXPECT_LT(uneven->service_mean_s, 1.2 * 0.05);

  // Bad speeds name their flag.
  BatchingModel bad = steady;
  bad.speed_trace = {1, 0};
  EXPECT_EQ(check_batching(bad).error().param, "speed-trace");
  bad.speed_trace = {1, std::nan("")};
  EXPECT_EQ(check_batching(bad).error().param, "speed-trace");
  bad.speed_trace = {1};
  bad.speed_window_s = 0;
  EXPECT_EQ(check_batching(bad).error().param, "speed-window");
}

TEST(BatchingModel, StallsWhereTheyHappenWaitLongerThanTheSameTimeSpread) {
  // An excess of zeros is a machine exactly as its costs: the same sample.
  const BatchingModel steady = one_slot();
  BatchingModel zeros = steady;
  zeros.excess_ms = {0, 0, 0};
  auto a = simulate_batching(steady, 12);
  auto b = simulate_batching(zeros, 12);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->waits, b->waits);

  // One iteration in 100 stalled 99 ms, the others 1 ms faster: the same mean cost (10 ms),
  // so the same capacity, but everything arriving during a stall queues behind it. A service
  // of 5 iterations then varies by 5 x 99 ms^2: M/G/1 waits (2,500 + 495) / 2,500 as long.
  BatchingModel stalled = steady;
  stalled.excess_ms.assign(99, -1.0);
  stalled.excess_ms.push_back(99);
  EXPECT_NEAR(batching_capacity(stalled), batching_capacity(steady), 0.02 * 20);
  auto c = simulate_batching(stalled, 12);
  ASSERT_TRUE(c.ok());
  EXPECT_NEAR(c->mean_wait_s / a->mean_wait_s, 2995.0 / 2500, 0.08);
  EXPECT_GT(nearest_rank(c->waits, 0.99), nearest_rank(a->waits, 0.99) + 0.02);
  // Seeded: the same draws again.
  auto again = simulate_batching(stalled, 12);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->waits, c->waits);

  // The same stalls given as two values with their shares: the same queue, near enough.
  BatchingModel weighted = steady;
  weighted.excess_ms = {-1, 99};
  weighted.excess_shares = {99, 1};
  auto d = simulate_batching(weighted, 12);
  ASSERT_TRUE(d.ok());
  EXPECT_NEAR(d->mean_wait_s / c->mean_wait_s, 1, 0.06);

  // A draw below the cost leaves a tenth of it: never a free or negative iteration.
  BatchingModel faster = steady;
  faster.excess_ms = {-100};
  EXPECT_NEAR(batching_capacity(faster), 200, 1e-6);

  BatchingModel bad = steady;
  bad.excess_ms = {1, std::nan("")};
  EXPECT_EQ(check_batching(bad).error().param, "iteration-excess");
  bad.excess_ms = {2e6};
  EXPECT_EQ(check_batching(bad).error().param, "iteration-excess");
  bad.excess_ms = {1, 2};
  bad.excess_shares = {1};
  EXPECT_EQ(check_batching(bad).error().param, "iteration-excess-shares");
  bad.excess_shares = {0, 0};
  EXPECT_EQ(check_batching(bad).error().param, "iteration-excess-shares");
  bad.excess_shares = {1, -1};
  EXPECT_EQ(check_batching(bad).error().param, "iteration-excess-shares");
}

TEST(BatchingModel, ARunsSpreadNarrowsWithItsLengthAndRepeatsAroundTheSteadyState) {
  // One slot, M/D/1 at rho 0.8 (service 50 ms): the long-run mean wait is
  // rho s / (2 (1 - rho)) = 100 ms; runs of 20 s hold 320 arrivals and scatter around it, runs
  // of 200 s less, and the mean of four 20 s runs less than one.
  const BatchingModel m = one_slot();
  const double rate = 16, steady = 0.1;
  auto short_runs = simulate_run_spread(m, rate, 20, 1, 1, 100);
  auto long_runs = simulate_run_spread(m, rate, 200, 1, 1, 100);
  auto four_short = simulate_run_spread(m, rate, 20, 4, 1, 100);
  ASSERT_TRUE(short_runs.ok()) << short_runs.error().message;
  ASSERT_TRUE(long_runs.ok() && four_short.ok());
  const auto width = [](const RunSpread& s) { return s.mean_wait_s[2] - s.mean_wait_s[0]; };
  for (const RunSpread* s : {&*short_runs, &*long_runs, &*four_short}) {
    EXPECT_EQ(s->samples, 100);
    EXPECT_LE(s->mean_wait_s[0], s->mean_wait_s[1]);
    EXPECT_LE(s->mean_wait_s[1], s->mean_wait_s[2]);
    EXPECT_LE(s->wait_p95_s[0], s->wait_p95_s[1]);
    EXPECT_LE(s->wait_p95_s[1], s->wait_p95_s[2]);
    EXPECT_GT(s->wait_p95_s[1], s->mean_wait_s[1]);
    // The steady state lies inside every band.
    EXPECT_LT(s->mean_wait_s[0], steady);
    EXPECT_GT(s->mean_wait_s[2], steady);
  }
  EXPECT_EQ(four_short->repeats, 4);
  EXPECT_DOUBLE_EQ(long_runs->seconds, 200);
  // Ten times the length: about a third of the width (the square root), well under half.
  EXPECT_LT(width(*long_runs), 0.5 * width(*short_runs));
  EXPECT_LT(width(*four_short), 0.7 * width(*short_runs));
  // A short run is more often below the long-run mean than above (an idle start, a skewed
  // sum): its median sits below the long run's.
  EXPECT_LT(short_runs->mean_wait_s[1], long_runs->mean_wait_s[1]);

  // Seeded: the same inputs, the same band; another seed, another.
  auto again = simulate_run_spread(m, rate, 20, 1, 1, 100);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->mean_wait_s, short_runs->mean_wait_s);
  auto other = simulate_run_spread(m, rate, 20, 1, 2, 100);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->mean_wait_s, short_runs->mean_wait_s);

  // Bad input names its flag.
  EXPECT_EQ(simulate_run_spread(m, rate, 0.01).error().param, "run-seconds");
  EXPECT_EQ(simulate_run_spread(m, rate, -5).error().param, "run-seconds");
  EXPECT_EQ(simulate_run_spread(m, rate, 20, 0).error().param, "run-repeats");
  EXPECT_EQ(simulate_run_spread(m, 25, 20).error().param, "utilization");  // above 20/s

  // A plan asked for it carries it, in the text and the JSON.
  Station base;
  base.arrival_rate = rate;
  auto station = with_batching(base, m);
  ASSERT_TRUE(station.ok());
  PlanInputs inputs;
  inputs.station = *station;
  inputs.run_seconds = 20;
  inputs.run_repeats = 2;
  auto plan = make_plan(inputs);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  ASSERT_TRUE(plan->run_spread.has_value());
  EXPECT_EQ(plan->run_spread->repeats, 2);
  const auto json = boost::json::parse(plan_json(*plan));
  const auto& spread = json.at("run_spread");
  EXPECT_EQ(spread.at("seconds").to_number<double>(), 20);
  EXPECT_EQ(spread.at("samples").to_number<int>(), kRunSpreadSamples);
  EXPECT_LE(spread.at("mean_wait_s").at("p5").to_number<double>(),
            spread.at("mean_wait_s").at("p95").to_number<double>());
  EXPECT_NE(plan_text(*plan).find("averaged over 2 runs"), std::string::npos);
  // Not asked: null.
  inputs.run_seconds = 0;
  auto plain = make_plan(inputs);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(boost::json::parse(plan_json(*plain)).at("run_spread").is_null());
}

}  // namespace
}  // namespace supportd::plan
