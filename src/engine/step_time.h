// Predicts how long a llama_decode call takes from the tokens it carries: a line (fixed cost
// plus a cost per token) fitted by least squares over recent calls, older ones forgotten
// exponentially. A call of a few decode tokens and one with a prompt chunk differ tenfold, so
// an average says little about the call that is about to run. Also the mean time of a whole
// step (one call, or two when decode tokens and prompt chunks are decoded apart).
// Not thread-safe; owned by the engine thread.
#pragma once

namespace supportd::engine {

class StepTimeModel {
 public:
  // `memory`: roughly how many recent calls the fit (and steps the mean) remembers.
  explicit StepTimeModel(double memory = 32);

  // A llama_decode call of `tokens` tokens took `milliseconds`.
  void record(int tokens, double milliseconds);
  // A whole step (all its calls) took `milliseconds`.
  void record_step(double milliseconds);
  // Milliseconds for a call of `tokens` tokens; 0 before any call was recorded.
  double predict(int tokens) const;
  // Milliseconds of the recent steps, on average; 0 before any step was recorded.
  double mean() const { return step_mean_ms_; }

 private:
  double forget_;
  double weight_ = 0;  // sum of the weights of the steps seen
  double mean_tokens_ = 0;
  double mean_ms_ = 0;
  double tokens_variance_ = 0;  // weighted, of tokens
  double covariance_ = 0;       // weighted, of tokens and milliseconds
  double step_weight_ = 0;
  double step_mean_ms_ = 0;
};

}  // namespace supportd::engine
