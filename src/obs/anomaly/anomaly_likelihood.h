// From raw anomaly scores to how unusual they are for this signal (after Numenta's "anomaly
// likelihood", Ahmad et al. 2017): the mean of the last few raw scores is compared with the
// distribution of such means over a longer recent history, and the tail probability of the
// current one becomes the score. A signal whose raw scores are always noisy stops alarming on
// its noise; a run of unusually high raw scores on a calm signal stands out.
// Thread-safety: not thread-safe; one owner feeds it.
#pragma once

#include <cstddef>
#include <deque>

namespace supportd::obs::anomaly {

struct LikelihoodOptions {
  std::size_t history = 2000;     // short means kept to estimate their distribution
  std::size_t average = 10;       // raw scores in a short mean
  std::size_t min_history = 100;  // short means needed before scoring (until then: 0)
  double decades = 10;            // score = -log10(tail probability) / decades, capped at 1
};

class AnomalyLikelihood {
 public:
  explicit AnomalyLikelihood(const LikelihoodOptions& options);

  // Adds a raw score and returns the calibrated one in [0, 1].
  double update(double raw);

  // The tail probability behind the last score (1 while learning).
  double tail_probability() const { return tail_; }

  // Whether enough history has been seen to score (until then update returns 0).
  bool ready() const { return means_.size() >= options_.min_history; }

 private:
  LikelihoodOptions options_;
  std::deque<double> recent_;  // the last `average` raw scores
  double recent_sum_ = 0;
  std::deque<double> means_;          // past short means, the oldest first
  double sum_ = 0, sum_squares_ = 0;  // of means_, recomputed now and then against drift
  std::size_t since_recount_ = 0;
  double tail_ = 1;
};

// The upper tail probability of the standard normal distribution at z.
double normal_tail(double z);

}  // namespace supportd::obs::anomaly
