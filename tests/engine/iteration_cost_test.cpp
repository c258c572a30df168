// The iteration cost a capacity plan simulates an engine with: a fixed cost, a cost per decode
// and per prompt token, a split step's extra and a cost per pair of decode tokens fitted apart,
// the fallbacks when the data cannot tell them apart, the excess, and the requests' mean
// tokens.
#include "engine/iteration_cost.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace supportd::engine {
namespace {

TEST(IterationCostModel, FitsAFixedCostAndACostPerTokenOfEachKind) {
  // 5 ms + 0.8 ms per decode token + 0.3 ms per prompt token, over batches of 1 to 8 decode
  // tokens with or without a prompt chunk of 32 to 160 tokens.
  IterationCostModel model(256);
  for (int i = 0; i < 400; ++i) {
    const int decode = 1 + i % 8;
    const int prompt = i % 3 == 0 ? 32 * (1 + i % 5) : 0;
    model.record_iteration(decode, prompt, false, 5 + 0.8 * decode + 0.3 * prompt);
  }
  const IterationCost cost = model.snapshot();
  EXPECT_EQ(cost.iterations, 400);
  EXPECT_EQ(cost.step_tokens, 256);
  EXPECT_NEAR(cost.fixed_ms, 5, 1e-6);
  EXPECT_NEAR(cost.per_decode_token_ms, 0.8, 1e-6);
  EXPECT_NEAR(cost.per_prompt_token_ms, 0.3, 1e-6);
  EXPECT_NEAR(cost.per_decode_pair_ms, 0, 1e-6);  // linear in the decode tokens: no pairs
}

TEST(IterationCostModel, FullBatchesThatCostMoreThanSmallOnesSayGetACostPerPair) {
  // Measured on a 2-core machine (docs/performance.md): 1 to 4 decode tokens took 0.91, 1.13,
  // 1.45 and 1.97 ms, convex. Generated here as 0.8 ms + 0.1 ms per decode token + 0.11 ms per
  // pair of them (0.9, 1.11, 1.43 and 1.86 ms), most iterations small as at a moderate load
  // (4 in 10 of 1 token, 3 of 2, 2 of 3, 1 of 4), and prompt chunks of 16 to 64 now and then.
  IterationCostModel model(256);
  const auto truth = [](int decode, int prompt) {
    return 0.8 + 0.1 * decode + 0.11 * decode * (decode - 1) / 2 + 0.03 * prompt;
  };
  for (int i = 0; i < 2000; ++i) {
    const int decode = i % 10 < 4 ? 1 : i % 10 < 7 ? 2 : i % 10 < 9 ? 3 : 4;
    const int prompt = i % 7 == 0 ? 16 * (1 + i % 4) : 0;
    model.record_iteration(decode, prompt, false, truth(decode, prompt));
  }
  const IterationCost cost = model.snapshot();
  EXPECT_NEAR(cost.fixed_ms, 0.8, 1e-6);
  EXPECT_NEAR(cost.per_decode_token_ms, 0.1, 1e-6);
  EXPECT_NEAR(cost.per_decode_pair_ms, 0.11, 1e-6);
  EXPECT_NEAR(cost.per_prompt_token_ms, 0.03, 1e-6);
  // The full batch, seen in 1 iteration of 10, is priced as it costs.
  EXPECT_NEAR(cost.predict(4, 0, false), truth(4, 0), 1e-6);
  EXPECT_EQ(cost.totals.decode_pairs, 600 * 1 + 400 * 3 + 200 * 6);

  // Concave (each more decode token cheaper, as when the weights' reading dominates): no
  // negative pair cost; the linear fit.
  IterationCostModel concave(256);
  for (int i = 0; i < 2000; ++i) {
    const int decode = 1 + i % 4;
    concave.record_iteration(decode, 0, false, 1 + 0.5 * decode - 0.05 * decode * decode);
  }
  EXPECT_EQ(concave.snapshot().per_decode_pair_ms, 0);
  EXPECT_GT(concave.snapshot().per_decode_token_ms, 0);
}

// The engine's shape (engine/llama/step.cpp): a 64-token chunk with decode tokens goes in two
// calls. 4 ms + 1.5 ms per decode token + 0.7 ms per prompt token + `split_ms` per split;
// decode steps of 1 to 4 tokens, chunks of 64 alone or with them.
IterationCost fit_split_steps(double split_ms) {
  IterationCostModel model(256, 64);
  for (int i = 0; i < 600; ++i) {
    const int decode = i % 5;
    const int prompt = i % 3 == 0 || decode == 0 ? 64 : 0;
    const bool split = decode > 0 && prompt > 0;
    model.record_iteration(decode, prompt, split,
                           4 + 1.5 * decode + 0.7 * prompt + (split ? split_ms : 0));
  }
  return model.snapshot();
}

TEST(IterationCostModel, ASplitStepsSecondCallIsCostedApart) {
  const IterationCost cost = fit_split_steps(9);
  EXPECT_EQ(cost.split_tokens, 64);
  EXPECT_NEAR(cost.fixed_ms, 4, 1e-6);
  EXPECT_NEAR(cost.per_decode_token_ms, 1.5, 1e-6);
  EXPECT_NEAR(cost.per_prompt_token_ms, 0.7, 1e-6);
  EXPECT_NEAR(cost.per_split_ms, 9, 1e-6);

  // Splits that seem to cost less than their tokens (noise): 0, not a negative number, and
  // the tokens' costs refitted without it (the decode tokens' between their slope and their
  // pairs: what a decode step and a chunk are predicted to cost stays within a few percent).
  const IterationCost cheaper = fit_split_steps(-0.5);
  EXPECT_EQ(cheaper.per_split_ms, 0);
  EXPECT_NEAR(cheaper.per_prompt_token_ms, 0.7, 0.05);
  for (int decode = 1; decode <= 4; ++decode)
    EXPECT_NEAR(cheaper.predict(decode, 0, false), 4 + 1.5 * decode, 0.05 * (4 + 1.5 * decode));
  EXPECT_NEAR(cheaper.predict(0, 64, false), 4 + 0.7 * 64, 0.05 * (4 + 0.7 * 64));
}

TEST(IterationCostModel, NothingMeasuredIsZeroAndOneKindAloneGivesItsSlopeToBoth) {
  IterationCostModel model(64);
  IterationCost empty = model.snapshot();
  EXPECT_EQ(empty.iterations, 0);
  EXPECT_EQ(empty.fixed_ms, 0);
  EXPECT_EQ(empty.per_decode_token_ms, 0);

  // Decode only: the prompt tokens never varied, so the data says nothing of them apart.
  for (int i = 0; i < 100; ++i)
    model.record_iteration(1 + i % 4, 0, false, 2 + 0.5 * (1 + i % 4));
  const IterationCost cost = model.snapshot();
  EXPECT_NEAR(cost.fixed_ms, 2, 1e-6);
  EXPECT_NEAR(cost.per_decode_token_ms, 0.5, 1e-6);
  EXPECT_NEAR(cost.per_prompt_token_ms, 0.5, 1e-6);

  // One size only: its mean is the fixed cost.
  IterationCostModel constant(64);
  for (int i = 0; i < 10; ++i)
    constant.record_iteration(4, 0, false, 7);
  EXPECT_NEAR(constant.snapshot().fixed_ms, 7, 1e-9);
  EXPECT_EQ(constant.snapshot().per_decode_token_ms, 0);
}

TEST(IterationCostModel, ASlopeTheNoiseMakesNegativeBecomesZero) {
  // Prompt chunks that came with faster iterations (another process left the cores): the
  // joint fit gives prompt tokens a negative cost, which no plan could use.
  IterationCostModel model(256);
  for (int i = 0; i < 200; ++i) {
    const int decode = 1 + i % 4;
    const int prompt = i % 2 == 0 ? 64 : 0;
    model.record_iteration(decode, prompt, false, 10 + 1.0 * decode - (prompt > 0 ? 3 : 0));
  }
  const IterationCost cost = model.snapshot();
  EXPECT_EQ(cost.per_prompt_token_ms, 0);
  EXPECT_GT(cost.per_decode_token_ms, 0);
  EXPECT_GE(cost.fixed_ms, 0);
}

TEST(IterationCostModel, TotalsSumEveryIterationAndForgetNone) {
  // The fit forgets (memory 16 here); the totals do not: two readings give what any fixed
  // costs predict for the iterations between them against what they took.
  IterationCostModel model(256, 64, 16);
  EXPECT_EQ(model.snapshot().totals.milliseconds, 0);
  for (int i = 0; i < 100; ++i)
    model.record_iteration(2, i % 2 ? 64 : 0, i % 2 == 1, 3);
  const IterationCost::Totals before = model.snapshot().totals;
  EXPECT_EQ(before.decode_tokens, 200);
  EXPECT_EQ(before.prompt_tokens, 50 * 64);
  EXPECT_EQ(before.splits, 50);
  EXPECT_EQ(before.decode_pairs, 100);  // 2 decode tokens: 1 pair each
  EXPECT_NEAR(before.milliseconds, 300, 1e-9);
  for (int i = 0; i < 10; ++i)
    model.record_iteration(4, 0, false, 6);
  const IterationCost after = model.snapshot();
  EXPECT_EQ(after.iterations, 110);
  EXPECT_EQ(after.totals.decode_tokens - before.decode_tokens, 40);
  EXPECT_EQ(after.totals.prompt_tokens, before.prompt_tokens);
  EXPECT_EQ(after.totals.splits, before.splits);
  EXPECT_NEAR(after.totals.milliseconds - before.milliseconds, 60, 1e-9);
}

TEST(IterationCostModel, TheExcessKeepsStallsWhereTheyHappened) {
  // 1 ms + 0.5 ms per decode token, and every 101st iteration stalled 20 ms (the OS took a
  // core): the fit spreads the stalls (0.2 ms an iteration on average), the excess keeps them.
  IterationCostModel model(256);
  const auto record = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      const int decode = 1 + i % 4;
      model.record_iteration(decode, 0, false, 1 + 0.5 * decode + (i % 101 == 100 ? 20 : 0));
    }
  };
  record(0, IterationCostModel::kRecentEvery - 1);
  EXPECT_EQ(model.snapshot().recent, nullptr);  // not measured yet
  EXPECT_TRUE(model.snapshot().excess().milliseconds.empty());
  record(IterationCostModel::kRecentEvery - 1, 3 * IterationCostModel::kRecentKept);
  const IterationCost cost = model.snapshot();
  ASSERT_NE(cost.recent, nullptr);
  EXPECT_EQ(cost.recent->size(), static_cast<std::size_t>(IterationCostModel::kRecentKept));
  const IterationCost::Excess summary = cost.excess();
  const std::vector<double>& excess = summary.milliseconds;
  const std::vector<double>& shares = summary.shares;
  constexpr int kValues = IterationCost::kExcessBins + IterationCost::kExcessTail;
  ASSERT_EQ(excess.size(), static_cast<std::size_t>(kValues));
  ASSERT_EQ(shares.size(), excess.size());
  EXPECT_TRUE(std::is_sorted(excess.begin(), excess.end()));
  // 40 or 41 stalls among the 4,096 kept: the 32 largest iterations are kept alone, each a
  // stall about 20 ms beyond what the fit predicts, with its share of 1 in 4,096; the bins
  // below hold the rest, the fit's share of the stalls (0.2 ms) below it.
  for (int i = kValues - IterationCost::kExcessTail; i < kValues; ++i) {
    EXPECT_NEAR(excess[i], 20 - 0.2, 0.2) << i;
    EXPECT_DOUBLE_EQ(shares[i], 1.0 / IterationCostModel::kRecentKept);
  }
  EXPECT_NEAR(excess.front(), -0.2, 0.05);
  EXPECT_NEAR(excess[kValues / 2], -0.2, 0.05);
  double total = 0, mean = 0;
  for (std::size_t i = 0; i < excess.size(); ++i) {
    total += shares[i];
    mean += shares[i] * excess[i];
  }
  EXPECT_NEAR(total, 1, 1e-9);
  EXPECT_NEAR(mean, 0, 0.02);  // the fit holds the mean

  // Iterations exactly as fitted: no excess anywhere.
  IterationCostModel exact(256);
  for (int i = 0; i < IterationCostModel::kRecentEvery; ++i)
    exact.record_iteration(1 + i % 4, 0, false, 1 + 0.5 * (1 + i % 4));
  const IterationCost::Excess none = exact.snapshot().excess();
  ASSERT_FALSE(none.milliseconds.empty());
  for (double e : none.milliseconds)
    EXPECT_NEAR(e, 0, 1e-4);
}

TEST(IterationCostModel, RequestsGiveTheirMeanTokensRecentOnesWeighingMore) {
  IterationCostModel model(256, 0, 8);
  for (int i = 0; i < 50; ++i)
    model.record_request(100, 20);
  EXPECT_EQ(model.snapshot().requests, 50);
  EXPECT_NEAR(model.snapshot().prompt_tokens, 100, 1e-9);
  EXPECT_NEAR(model.snapshot().output_tokens, 20, 1e-9);
  for (int i = 0; i < 50; ++i)
    model.record_request(40, 60);
  // A memory of about 8 requests: the old ones are all but forgotten.
  EXPECT_NEAR(model.snapshot().prompt_tokens, 40, 0.1);
  EXPECT_NEAR(model.snapshot().output_tokens, 60, 0.1);
}

}  // namespace
}  // namespace supportd::engine
