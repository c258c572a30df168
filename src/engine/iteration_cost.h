// What one iteration of an engine's loop costs and what a request asks of it, as measured: the
// figures a capacity plan simulates continuous batching with (plan/batching_model.h; served in
// /v1/stats as "capacity.iteration_cost").
// An iteration is the loop's round from one admission to the next around a step that computed
// for callers; a round that waited for work is not one. Its wall time (the step's llama_decode
// calls, sampling, handing out the tokens, the loop's own work) is fitted by least squares to
//   fixed + per decode token x decode tokens + per prompt token x prompt tokens
//         + per split x (1 if the step's decode tokens and prompt chunks went to llama_decode
//                          in two calls, else 0)
//         + per decode pair x decode tokens x (decode tokens - 1) / 2,
// every coefficient 0 or more, older iterations forgotten exponentially. The last term is the
// cost's growth beyond linear in the decode tokens, where there is some: on a 2-core machine a
// full batch of 4 cost 2.0 ms where 1, 2 and 3 cost 0.91, 1.13 and 1.45 (docs/performance.md),
// and a linear fit over mostly smaller batches priced the full ones, where queues form, low.
// A request's demand is the prompt tokens it computed (its prompt less what it reused) and the
// tokens it generated, averaged over the recent requests that finished normally.
// How iterations scatter around the fit is kept too: the recent iterations themselves, from
// which IterationCost::excess() gives their time less what the fit predicts for each (an
// iteration the OS or another thread stalled for 20 ms at 1 ms predicted shows as +19 ms), the
// largest alone and the rest in bins, each with its share; a simulation that draws from them
// sees stalls where they happen instead of spread over every iteration.
// Not thread-safe: owned by the engine thread; its snapshot travels in EngineStats (the
// snapshot is a value: any thread may read it, and summarize its excess).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace supportd::engine {

struct IterationCost {
  std::int64_t iterations = 0;  // measured since start (0: nothing to plan from)
  double fixed_ms = 0;
  double per_decode_token_ms = 0;
  double per_prompt_token_ms = 0;
  // What a split step's second llama_decode call adds (a second pass over the weights).
  double per_split_ms = 0;
  // What each pair of decode tokens in one step adds (the convex part; see above).
  double per_decode_pair_ms = 0;
  // A step holding decode tokens and prompt chunks is split from this many tokens (0: never;
  // the engine's layout decides, see engine/llama/step.cpp).
  int split_tokens = 0;
  std::int64_t requests = 0;  // finished normally since start
  double prompt_tokens = 0;   // computed per request, recent mean
  double output_tokens = 0;   // generated per request, recent mean
  int step_tokens = 0;        // the engine's token budget per step
  // Every iteration fitted since start, summed (never forgotten): with two readings, what any
  // fixed costs predict for the iterations between them against what they took (a run's speed
  // against a calibration: bench/capacity-backtest).
  struct Totals {
    double milliseconds = 0;
    std::int64_t decode_tokens = 0;
    std::int64_t prompt_tokens = 0;
    std::int64_t splits = 0;
    std::int64_t decode_pairs = 0;  // each iteration's decode tokens x (them - 1) / 2
  } totals;
  // The most recent iterations as measured (at most IterationCostModel::kRecentKept, in no
  // particular order; refreshed every kRecentEvery iterations; null before the first
  // kRecentEvery).
  struct Iteration {
    float decode_tokens, prompt_tokens, milliseconds;
    bool split;
  };
  std::shared_ptr<const std::vector<Iteration>> recent;

  // What the fit predicts for an iteration.
  double predict(double decode_tokens, double prompt_tokens, bool split) const;

  // The recent iterations' time less the fit's prediction for each (milliseconds), sorted:
  // the kExcessTail largest alone, the rest cut into kExcessBins equal bins; each value is a
  // bin's mean and its share the bin's part of the iterations (the shares sum to 1). The rare
  // stalls keep their size that way, where equal bins would average them with ordinary
  // iterations. Empty when `recent` is null. A sort of kRecentKept values: about 0.2 ms, paid
  // by whoever asks (the stats handler), not the engine thread.
  struct Excess {
    std::vector<double> milliseconds;  // ascending
    std::vector<double> shares;
  };
  static constexpr int kExcessTail = 32;
  static constexpr int kExcessBins = 96;
  Excess excess() const;
};

class IterationCostModel {
 public:
  // The fit's regressors (decode tokens, prompt tokens, split as 0 or 1, decode pairs) and its
  // sums' shapes.
  static constexpr int kRegressors = 4;
  // Iterations kept for the excess (the most recent), and how often their copy in the
  // snapshot is refreshed (64 KB copied once per kRecentEvery iterations).
  static constexpr int kRecentKept = 4096;
  static constexpr int kRecentEvery = 256;
  using Vector = std::array<double, kRegressors>;
  using Matrix = std::array<Vector, kRegressors>;

  // `step_tokens`: the engine's budget per step and `split_tokens` its split size (both
  // reported with the fit). `memory`: roughly how many recent iterations, and requests, the
  // figures follow.
  explicit IterationCostModel(int step_tokens, int split_tokens = 0, double memory = 4096);

  // An iteration whose step fed `decode_tokens` decode tokens and `prompt_tokens` prompt
  // tokens, in two llama_decode calls if `split`, took `milliseconds`.
  void record_iteration(int decode_tokens, int prompt_tokens, bool split, double milliseconds);
  // A request finished normally after computing `prompt_tokens` and generating
  // `output_tokens`.
  void record_request(int prompt_tokens, int output_tokens);

  // The fit: every coefficient 0 or more (the least-squares fit under that constraint). A kind
  // of token whose count never varied, or that always came in step with the other, gets the
  // slope of all tokens together (or none); a split never seen, or always seen, costs 0 apart
  // from the rest, and so do decode pairs when no step held two decode tokens.
  IterationCost snapshot() const;

 private:
  void fit(IterationCost& cost) const;

  const double forget_;
  const int step_tokens_;
  const int split_tokens_;
  std::int64_t iterations_ = 0;
  IterationCost::Totals totals_;
  double weight_ = 0;
  Vector mean_{};
  double mean_ms_ = 0;
  // Weighted (co)variances of the regressors, and of each with milliseconds.
  Matrix covariance_{};
  Vector with_ms_{};
  std::int64_t requests_ = 0;
  double request_weight_ = 0;
  double mean_request_prompt_ = 0, mean_request_output_ = 0;
  std::vector<IterationCost::Iteration> kept_;  // a ring of the last kRecentKept iterations
  std::shared_ptr<const std::vector<IterationCost::Iteration>> recent_;  // kept_, copied
};

}  // namespace supportd::engine
