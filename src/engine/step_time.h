// Predicts how long an engine step takes from the tokens it carries: a line (fixed cost plus a
// cost per token) fitted by least squares over recent steps, older ones forgotten
// exponentially. A step of a few decode tokens and one with a prompt chunk differ tenfold, so
// an average step time says little about the step that is about to run.
// Not thread-safe; owned by the engine thread.
#pragma once

namespace supportd::engine {

class StepTimeModel {
 public:
  // `memory`: roughly how many recent steps the fit remembers.
  explicit StepTimeModel(double memory = 32);

  void record(int tokens, double milliseconds);
  // Milliseconds for a step of `tokens` tokens; 0 before any step was recorded.
  double predict(int tokens) const;
  // Milliseconds of the recent steps, on average; 0 before any step was recorded.
  double mean() const { return mean_ms_; }

 private:
  double forget_;
  double weight_ = 0;  // sum of the weights of the steps seen
  double mean_tokens_ = 0;
  double mean_ms_ = 0;
  double tokens_variance_ = 0;  // weighted, of tokens
  double covariance_ = 0;       // weighted, of tokens and milliseconds
};

}  // namespace supportd::engine
