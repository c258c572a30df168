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

namespace {

double path_length_formula(double n) {
  if (n <= 1) return 0;
  if (n == 2) return 1;
  constexpr double kEulerGamma = 0.5772156649015329;
  return 2.0 * (std::log(n - 1) + kEulerGamma) - 2.0 * (n - 1) / n;
}

}  // namespace

double average_path_length(double n) {
  // Every leaf of every path asks for it: a table for the sizes trees have.
  static const std::vector<double> table = [] {
    std::vector<double> values(4097);
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = path_length_formula(static_cast<double>(i));
    return values;
  }();
  if (n >= 0 && n < static_cast<double>(table.size()) && n == std::floor(n))
    return table[static_cast<std::size_t>(n)];
  return path_length_formula(n);
}

IsolationTree::IsolationTree(std::span<const double> points, std::size_t dimensions,
                             std::span<std::uint32_t> rows, int height_limit, Random& random)
    : dimensions_(dimensions), height_limit_(height_limit), sample_size_(rows.size()) {
  const std::size_t most_nodes =
      std::min<std::size_t>(2 * rows.size(), std::size_t{2} << height_limit);
  nodes_.reserve(most_nodes);
  boxes_.reserve(most_nodes * dimensions);  // internal nodes: about half
  build(points, rows, 0, random);
  nodes_.shrink_to_fit();
  boxes_.shrink_to_fit();
}

std::uint16_t IsolationTree::build(std::span<const double> points, std::span<std::uint32_t> rows,
                                   int depth, Random& random) {
  const auto index = static_cast<std::uint16_t>(nodes_.size());
  nodes_.push_back({});
  nodes_[index].box_or_size = static_cast<std::uint16_t>(rows.size());
  if (rows.size() <= 1 || depth >= height_limit_) return index;

  const std::size_t box = boxes_.size();
  boxes_.resize(box + 2 * dimensions_);
  for (std::size_t f = 0; f < dimensions_; ++f) {
    boxes_[box + 2 * f] = std::numeric_limits<double>::infinity();
    boxes_[box + 2 * f + 1] = -std::numeric_limits<double>::infinity();
  }
  for (std::uint32_t row : rows) {
    for (std::size_t f = 0; f < dimensions_; ++f) {
      const double value = points[row * dimensions_ + f];
      boxes_[box + 2 * f] = std::min(boxes_[box + 2 * f], value);
      boxes_[box + 2 * f + 1] = std::max(boxes_[box + 2 * f + 1], value);
    }
  }
  // A random feature among those the rows do not all share, split uniformly in its range.
  std::size_t spread = 0;
  for (std::size_t f = 0; f < dimensions_; ++f)
    spread += boxes_[box + 2 * f + 1] > boxes_[box + 2 * f] ? 1 : 0;
  if (spread == 0) {  // identical points: a leaf after all
    boxes_.resize(box);
    return index;
  }
  std::size_t pick = random.below(spread);
  std::size_t feature = 0;
  for (; feature < dimensions_; ++feature) {
    if (boxes_[box + 2 * feature + 1] > boxes_[box + 2 * feature] && pick-- == 0) break;
  }
  const double low = boxes_[box + 2 * feature], high = boxes_[box + 2 * feature + 1];
  double split = low + random.uniform() * (high - low);
  if (split <= low) split = std::nextafter(low, high);  // both sides keep a row

  const auto middle = std::partition(rows.begin(), rows.end(), [&](std::uint32_t row) {
    return points[row * dimensions_ + feature] < split;
  });
  const auto left_rows = static_cast<std::size_t>(middle - rows.begin());
  const std::uint16_t left = build(points, rows.first(left_rows), depth + 1, random);
  const std::uint16_t right = build(points, rows.subspan(left_rows), depth + 1, random);
  Node& node = nodes_[index];
  node.feature = static_cast<std::int16_t>(feature);
  node.split = split;
  node.left = left;
  node.right = right;
  node.box_or_size = static_cast<std::uint16_t>(box / (2 * dimensions_));
  return index;
}

double IsolationTree::path_length(std::span<const double> point) const {
  std::uint16_t at = 0;
  double depth = 0;
  double expected = 0;
  double still_in = 1;  // probability the point has not been cut off yet
  const double feature_share = 1.0 / static_cast<double>(dimensions_);
  while (nodes_[at].feature >= 0) {
    const Node& node = nodes_[at];
    const double* box = &boxes_[node.box_or_size * 2 * dimensions_];
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
  return expected + still_in * (depth + average_path_length(nodes_[at].box_or_size));
}

}  // namespace supportd::obs::anomaly
