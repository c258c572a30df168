// What one iteration of an engine's loop costs and what a request asks of it, as measured: the
// figures a capacity plan simulates continuous batching with (plan/batching_model.h; served in
// /v1/stats as "capacity.iteration_cost").
// An iteration is the loop's round from one admission to the next around a step that computed
// for callers; a round that waited for work is not one. Its wall time (the step's llama_decode
// calls, sampling, handing out the tokens, the loop's own work) is fitted by least squares to
//   fixed + per decode token x decode tokens + per prompt token x prompt tokens,
// older iterations forgotten exponentially. A request's demand is the prompt tokens it computed
// (its prompt less what it reused) and the tokens it generated, averaged over the recent
// requests that finished normally.
// Not thread-safe: owned by the engine thread; its snapshot travels in EngineStats.
#pragma once

#include <cstdint>

namespace supportd::engine {

struct IterationCost {
  std::int64_t iterations = 0;  // measured since start (0: nothing to plan from)
  double fixed_ms = 0;
  double per_decode_token_ms = 0;
  double per_prompt_token_ms = 0;
  std::int64_t requests = 0;  // finished normally since start
  double prompt_tokens = 0;   // computed per request, recent mean
  double output_tokens = 0;   // generated per request, recent mean
  int step_tokens = 0;        // the engine's token budget per step
};

class IterationCostModel {
 public:
  // `step_tokens`: the engine's budget per step (reported with the fit). `memory`: roughly how
  // many recent iterations, and requests, the figures follow.
  explicit IterationCostModel(int step_tokens, double memory = 4096);

  // An iteration whose step fed `decode_tokens` decode tokens and `prompt_tokens` prompt
  // tokens took `milliseconds`.
  void record_iteration(int decode_tokens, int prompt_tokens, double milliseconds);
  // A request finished normally after computing `prompt_tokens` and generating
  // `output_tokens`.
  void record_request(int prompt_tokens, int output_tokens);

  // The fit: every coefficient 0 or more. A kind of token whose count never varied, or that
  // always came in step with the other, gets the slope of all tokens together (or none); a
  // slope the data makes negative (noise) is set to 0 and the other refitted alone.
  IterationCost snapshot() const;

 private:
  const double forget_;
  const int step_tokens_;
  std::int64_t iterations_ = 0;
  double weight_ = 0;
  double mean_decode_ = 0, mean_prompt_ = 0, mean_ms_ = 0;
  // Weighted (co)variances of decode tokens (d), prompt tokens (p) and milliseconds (y).
  double dd_ = 0, pp_ = 0, dp_ = 0, dy_ = 0, py_ = 0;
  std::int64_t requests_ = 0;
  double request_weight_ = 0;
  double mean_request_prompt_ = 0, mean_request_output_ = 0;
};

}  // namespace supportd::engine
