// An isolation forest over a sliding reference window, for a stream: each new point is scored
// against trees built only from points before it, then joins the window; every
// `refresh_every` points the oldest tree is replaced by one built on a fresh sample of the
// window, so the forest follows the stream (a new normal becomes normal) without a full rebuild.
// Thread-safety: not thread-safe; one owner feeds it.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "obs/anomaly/isolation_tree.h"

namespace supportd::obs::anomaly {

struct ForestOptions {
  std::size_t trees = 100;         // trees kept
  std::size_t sample_size = 2048;  // points per tree (the height limit is log2 of it)
  std::size_t window = 16000;      // reference points kept (the most recent ones)
  std::size_t refresh_every = 10;  // points between replacing the oldest tree
  std::size_t min_points = 64;     // points needed before the first tree is built
  std::size_t height_limit = 8;    // 0: log2 of the sample size
};

class StreamingForest {
 public:
  // REQUIRES: dimensions > 0; options' sizes > 0, min_points >= 2.
  StreamingForest(std::size_t dimensions, const ForestOptions& options, std::uint64_t seed);

  // Scores `point` (`dimensions` values) against the current trees, then adds it to the
  // window (and builds or replaces a tree when due). The score is 2^(-E[h] / c(n)), in (0, 1]:
  // about 0.5 and below for points like the window's, towards 1 for isolated ones; nullopt
  // before the first tree exists.
  std::optional<double> score_and_learn(std::span<const double> point);

  // Scores without learning (for tests and inspection).
  std::optional<double> score(std::span<const double> point) const;

  std::size_t tree_count() const { return trees_.size(); }
  std::size_t window_size() const { return window_.size() / dimensions_; }

 private:
  void add_tree();

  const std::size_t dimensions_;
  const ForestOptions options_;
  Random random_;
  std::deque<double> window_;          // the last `options_.window` points, row-major
  std::deque<IsolationTree> trees_;    // oldest first
  std::vector<double> sample_points_;  // scratch: the rows a new tree is built from
  std::size_t since_refresh_ = 0;
};

}  // namespace supportd::obs::anomaly
