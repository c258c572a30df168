// Damping scores that do not rise above the recent ones, so an anomaly is reported at its onset.
#include "obs/anomaly/onset_filter.h"

namespace supportd::obs::anomaly {

double OnsetFilter::filter(double score) {
  if (options_.window == 0) {
    onset_ = true;
    return score;
  }
  while (!maxima_.empty() && maxima_.front().first + options_.window < count_)
    maxima_.pop_front();
  onset_ = maxima_.empty() || score > maxima_.front().second;
  while (!maxima_.empty() && maxima_.back().second <= score)
    maxima_.pop_back();
  maxima_.emplace_back(count_++, score);
  return onset_ ? score : score * options_.damping;
}

}  // namespace supportd::obs::anomaly
