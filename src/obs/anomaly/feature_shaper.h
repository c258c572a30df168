// Turns a stream of values into the feature vectors the forest sees, one per value, using only
// the values so far: the value itself, its recent past (a shingle), and short-window shapes
// (the step from the previous value, a short mean) that make a change in level or in
// roughness stand out even when each value alone is ordinary.
// Thread-safety: not thread-safe; one owner feeds it.
#pragma once

#include <cstddef>
#include <deque>
#include <span>
#include <vector>

namespace supportd::obs::anomaly {

struct FeatureOptions {
  std::size_t shingle = 1;        // values in the vector: the current one and shingle-1 before it
  bool step = true;               // the difference from the previous value
  std::size_t mean_window = 10;   // > 1: the mean of the last mean_window values
  std::size_t spread_window = 0;  // > 1: the mean absolute step over the last spread_window values
};

class FeatureShaper {
 public:
  explicit FeatureShaper(const FeatureOptions& options);

  std::size_t dimensions() const { return dimensions_; }

  // Adds `value` and returns its feature vector (valid until the next call); empty until
  // enough values have been seen to fill every feature.
  std::span<const double> push(double value);

 private:
  FeatureOptions options_;
  std::size_t dimensions_;
  std::size_t history_;        // values kept
  std::deque<double> values_;  // the most recent last
  std::vector<double> features_;
};

}  // namespace supportd::obs::anomaly
