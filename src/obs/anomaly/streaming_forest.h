// An isolation forest over a sliding reference window, for a stream: each new point is scored
// against trees built only from points before it, then joins the window; every
// `refresh_every` points the oldest tree is replaced by one built on a fresh sample of the
// window, so the forest follows the stream (a new normal becomes normal) without a rebuild.
// Memory: the window (window x dimensions doubles) and the trees (at most 2^(height+1) nodes
// each); cost per point: one path per tree, and a tree built every `refresh_every` points.
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
  std::size_t sample_size = 2048;  // window points each tree is built on
  std::size_t height_limit = 8;    // depth of the trees (leaves then hold ~sample/2^height)
  std::size_t window = 16000;      // reference points kept (the most recent ones)
  std::size_t refresh_every = 10;  // points between replacing the oldest tree
  std::size_t min_points = 64;     // points needed before the first tree is built
};

class StreamingForest {
 public:
  // REQUIRES: dimensions > 0; trees, sample_size, height_limit, window, refresh_every > 0;
  // min_points >= 2.
  StreamingForest(std::size_t dimensions, const ForestOptions& options, std::uint64_t seed);

  // Scores `point` (`dimensions` values) against the current trees, then adds it to the
  // window (and builds or replaces a tree when due). The score is 2^(-E[h] / c(n)), in (0, 1):
  // about 0.5 and below for points like the window's, towards 1 for isolated ones; nullopt
  // while no tree exists yet.
  std::optional<double> score_and_learn(std::span<const double> point);

  // Scores `point` without learning from it.
  std::optional<double> score(std::span<const double> point) const;

  std::size_t tree_count() const { return trees_.size(); }
  std::size_t window_size() const { return size_; }

 private:
  void add_tree();

  const std::size_t dimensions_;
  const ForestOptions options_;
  Random random_;
  std::vector<double> window_;        // a ring of options_.window points, row-major
  std::size_t next_ = 0;              // the ring slot the next point goes to
  std::size_t size_ = 0;              // points in the ring
  std::vector<std::uint32_t> slots_;  // a permutation of the filled slots (for sampling)
  std::deque<IsolationTree> trees_;   // oldest first
  std::vector<double> sample_;        // scratch: the points a new tree is built on
  std::vector<std::uint32_t> rows_;   // scratch: their row numbers
  std::size_t since_refresh_ = 0;
};

}  // namespace supportd::obs::anomaly
