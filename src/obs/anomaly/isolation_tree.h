// One isolation tree (Liu, Ting and Zhou 2008): built on a small sample of points by splitting
// at a random value of a random feature until each point stands alone or the height limit is
// reached; a point that the splits isolate in few steps is unlike the sample.
// Thread-safety: build once; path_length may then be called from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace supportd::obs::anomaly {

// A small deterministic generator (splitmix64): the same seed gives the same trees on every
// platform, which std::uniform_*_distribution does not promise.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform();                      // in [0, 1)
  std::size_t below(std::size_t bound);  // in [0, bound); REQUIRES: bound > 0

 private:
  std::uint64_t state_;
};

// Expected path length of an unsuccessful search in a binary search tree of n points: the
// normaliser c(n) of isolation forests (0 for n <= 1).
double average_path_length(double n);

class IsolationTree {
 public:
  // Builds the tree on `points` (row-major, `dimensions` values per point) taking the rows
  // listed in `rows` (reordered in place); `height_limit` bounds the depth. Keeps no reference
  // to its arguments. REQUIRES: 0 < dimensions < 65535, 0 < height_limit <= 20,
  // rows.size() < 2^23, every listed row exists.
  IsolationTree(std::span<const double> points, std::size_t dimensions,
                std::span<std::uint32_t> rows, int height_limit, Random& random);

  // The expected number of splits that isolate `point` (`dimensions` values), plus c(n) for
  // the n sample points still sharing its leaf. Where the point lies outside the box of the
  // sample points that reached a node, it counts as cut off there with the probability a
  // random split of that node would have separated it had it been in the sample: a point far
  // beyond the sample isolates in fewer splits than the sample's own extreme points, instead
  // of sharing their path length as in the original algorithm. Points that no split could
  // separate (identical ones) keep their box too, so that after a constant stretch (no errors,
  // an empty queue) any other value stands out rather than scoring as ordinary.
  double path_length(std::span<const double> point) const;

  std::size_t sample_size() const { return sample_size_; }

 private:
  // A child: >= 0 the index of an internal node; < 0 a leaf holding -(child + 1) points.
  using Child = std::int32_t;

  Child build(std::span<const double> points, std::span<std::uint32_t> rows, int depth,
              Random& random);

  std::size_t dimensions_;
  std::size_t stride_;  // doubles per internal node: 2 + 2 * dimensions
  int height_limit_;
  std::size_t sample_size_;
  Child root_ = -1;
  // The internal nodes (and the leaves of identical points), each in one run of `stride_`
  // doubles, so that a step of a path reads one or two cache lines: the split value; the
  // feature and both children packed in 64 bits; then per feature the low and high of the
  // sample points that reached the node.
  std::vector<double> nodes_;
};

}  // namespace supportd::obs::anomaly
