#include "obs/anomaly/isolation_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace supportd::obs::anomaly {

std::uint64_t Random::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double Random::uniform() {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

std::size_t Random::below(std::size_t bound) {
  return static_cast<std::size_t>(next() % bound);
}

double average_path_length(double n) {
  if (n <= 1) return 0;
  if (n == 2) return 1;
  constexpr double kEulerGamma = 0.5772156649015329;
  return 2.0 * (std::log(n - 1) + kEulerGamma) - 2.0 * (n - 1) / n;
}

IsolationTree::IsolationTree(std::span<const double> points, std::size_t dimensions,
                             std::vector<std::uint32_t> sample, int height_limit, Random& random)
    : dimensions_(dimensions), height_limit_(height_limit), sample_size_(sample.size()) {
  nodes_.reserve(2 * sample.size());
  boxes_.reserve(4 * sample.size() * dimensions);
  build(points, sample, 0, random);
}

std::uint32_t IsolationTree::build(std::span<const double> points, std::span<std::uint32_t> rows,
                                   int depth, Random& random) {
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back({});
  thread_local std::vector<std::pair<double, double>> ranges;
  ranges.assign(dimensions_, {std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity()});
  for (std::uint32_t row : rows) {
    for (std::size_t f = 0; f < dimensions_; ++f) {
      const double value = points[row * dimensions_ + f];
      ranges[f].first = std::min(ranges[f].first, value);
      ranges[f].second = std::max(ranges[f].second, value);
    }
  }
  for (const auto& [low, high] : ranges) {
    boxes_.push_back(low);
    boxes_.push_back(high);
  }
  auto leaf = [&] {
    nodes_[index].size = static_cast<std::uint32_t>(rows.size());
    return index;
  };
  if (rows.size() <= 1 || depth >= height_limit_) return leaf();

  // A random feature among those the rows do not all share, split uniformly in its range.
  std::size_t spread = 0;
  for (const auto& [low, high] : ranges)
    spread += high > low ? 1 : 0;
  if (spread == 0) return leaf();
  std::size_t pick = random.below(spread);
  std::size_t feature = 0;
  for (; feature < dimensions_; ++feature) {
    if (ranges[feature].second > ranges[feature].first && pick-- == 0) break;
  }
  const auto [low, high] = ranges[feature];
  double split = low + random.uniform() * (high - low);
  if (split <= low) split = std::nextafter(low, high);  // both sides keep a row

  const auto middle = std::partition(rows.begin(), rows.end(), [&](std::uint32_t row) {
    return points[row * dimensions_ + feature] < split;
  });
  const auto left_rows = static_cast<std::size_t>(middle - rows.begin());
  const std::uint32_t left = build(points, rows.first(left_rows), depth + 1, random);
  const std::uint32_t right = build(points, rows.subspan(left_rows), depth + 1, random);
  Node& node = nodes_[index];
  node.feature = static_cast<int>(feature);
  node.split = split;
  node.left = left;
  node.right = right;
  return index;
}

double IsolationTree::path_length(std::span<const double> point) const {
  std::uint32_t at = 0;
  double depth = 0;
  double expected = 0;
  double still_in = 1;  // probability the point has not been cut off yet
  const double feature_share = 1.0 / static_cast<double>(dimensions_);
  while (nodes_[at].feature >= 0) {
    const Node& node = nodes_[at];
    const double* box = &boxes_[at * 2 * dimensions_];
    double cut_off = 0;
    for (std::size_t f = 0; f < dimensions_; ++f) {
      const double low = box[2 * f], high = box[2 * f + 1];
      const double outside = std::max(low - point[f], 0.0) + std::max(point[f] - high, 0.0);
      if (outside > 0) cut_off += outside / (high - low + outside);
    }
    cut_off *= feature_share;
    expected += still_in * cut_off * (depth + 1);
    still_in *= 1 - cut_off;
    at = point[static_cast<std::size_t>(node.feature)] < node.split ? node.left : node.right;
    depth += 1;
  }
  return expected + still_in * (depth + average_path_length(nodes_[at].size));
}

}  // namespace supportd::obs::anomaly
