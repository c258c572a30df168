// How rare a raw score is for this signal: its tail probability among the signal's recent raw
// scores, with the tail beyond a high quantile modelled as exponential (peaks over threshold,
// as in extreme-value theory), so that scores beyond anything seen recently still rank by how
// far beyond they are. Comparable across signals: a threshold on it is a false-alarm rate.
// Thread-safety: not thread-safe; one owner feeds it.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

namespace supportd::obs::anomaly {

struct TailOptions {
  std::size_t history = 2000;     // recent raw scores kept
  double tail_share = 0.05;       // share of them in the modelled tail
  std::size_t min_history = 200;  // raw scores needed before scoring (until then: 0)
  double decades = 10;            // score = -log10(tail probability) / decades, capped at 1
  std::size_t refit_every = 10;   // scores between refitting the quantile and the tail
};

class TailProbability {
 public:
  explicit TailProbability(const TailOptions& options);

  // Scores `raw` against the history (before adding it) and adds it; returns the score in
  // [0, 1].
  double update(double raw);

  double tail_probability() const { return tail_; }

 private:
  void refit();

  TailOptions options_;
  std::deque<double> history_;
  std::vector<double> sorted_;  // scratch
  std::size_t since_fit_ = 0;
  bool fitted_ = false;
  double threshold_ = 0;    // the (1 - tail_share) quantile
  double mean_excess_ = 0;  // mean of the excesses over it
  double tail_ = 1;
};

}  // namespace supportd::obs::anomaly
