// Building one isolation tree on a sample and the path length at which it isolates a point.
#include "obs/anomaly/isolation_tree.h"

#include <algorithm>
#include <bit>
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

namespace {

// The feature in a node that does not split: the sample points that reached it are identical,
// and both its children are the leaf they form.
constexpr std::size_t kIdentical = 0xFFFF;

// The feature (16 bits) and the two children (24 bits each, signed) of an internal node.
double pack(std::size_t feature, std::int32_t left, std::int32_t right) {
  const std::uint64_t bits = static_cast<std::uint64_t>(feature) |
                             (static_cast<std::uint64_t>(left & 0xFFFFFF) << 16) |
                             (static_cast<std::uint64_t>(right & 0xFFFFFF) << 40);
  return std::bit_cast<double>(bits);
}

struct Unpacked {
  std::size_t feature;
  std::int32_t left, right;
};

std::int32_t sign_extend_24(std::uint64_t bits) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(bits << 8)) >> 8;
}

Unpacked unpack(double packed) {
  const auto bits = std::bit_cast<std::uint64_t>(packed);
  return {static_cast<std::size_t>(bits & 0xFFFF), sign_extend_24(bits >> 16 & 0xFFFFFF),
          sign_extend_24(bits >> 40 & 0xFFFFFF)};
}

}  // namespace

IsolationTree::IsolationTree(std::span<const double> points, std::size_t dimensions,
                             std::span<std::uint32_t> rows, int height_limit, Random& random)
    : dimensions_(dimensions),
      stride_(2 + 2 * dimensions),
      height_limit_(height_limit),
      sample_size_(rows.size()) {
  nodes_.reserve(std::min<std::size_t>(rows.size(), std::size_t{1} << height_limit) * stride_);
  root_ = build(points, rows, 0, random);
  nodes_.shrink_to_fit();
}

IsolationTree::Child IsolationTree::build(std::span<const double> points,
                                          std::span<std::uint32_t> rows, int depth,
                                          Random& random) {
  const Child leaf = -static_cast<Child>(rows.size()) - 1;
  if (rows.size() <= 1 || depth >= height_limit_) return leaf;

  const std::size_t at = nodes_.size();
  nodes_.resize(at + stride_);
  double* box = &nodes_[at + 2];
  for (std::size_t f = 0; f < dimensions_; ++f) {
    box[2 * f] = std::numeric_limits<double>::infinity();
    box[2 * f + 1] = -std::numeric_limits<double>::infinity();
  }
  for (std::uint32_t row : rows) {
    for (std::size_t f = 0; f < dimensions_; ++f) {
      const double value = points[row * dimensions_ + f];
      box[2 * f] = std::min(box[2 * f], value);
      box[2 * f + 1] = std::max(box[2 * f + 1], value);
    }
  }
  // A random feature among those the rows do not all share, split uniformly in its range.
  std::size_t spread = 0;
  for (std::size_t f = 0; f < dimensions_; ++f)
    spread += box[2 * f + 1] > box[2 * f] ? 1 : 0;
  if (spread == 0) {  // identical points: a leaf after all, but one that keeps their box
    nodes_[at] = 0;
    nodes_[at + 1] = pack(kIdentical, leaf, leaf);
    return static_cast<Child>(at / stride_);
  }
  std::size_t pick = random.below(spread);
  std::size_t feature = 0;
  for (; feature < dimensions_; ++feature) {
    if (box[2 * feature + 1] > box[2 * feature] && pick-- == 0) break;
  }
  const double low = box[2 * feature], high = box[2 * feature + 1];
  double split = low + random.uniform() * (high - low);
  if (split <= low) split = std::nextafter(low, high);  // both sides keep a row

  const auto middle = std::partition(rows.begin(), rows.end(), [&](std::uint32_t row) {
    return points[row * dimensions_ + feature] < split;
  });
  const auto left_rows = static_cast<std::size_t>(middle - rows.begin());
  const Child left = build(points, rows.first(left_rows), depth + 1, random);
  const Child right = build(points, rows.subspan(left_rows), depth + 1, random);
  nodes_[at] = split;  // `box` may have moved: the children grew nodes_
  nodes_[at + 1] = pack(feature, left, right);
  return static_cast<Child>(at / stride_);
}

double IsolationTree::path_length(std::span<const double> point) const {
  if (root_ < 0) return average_path_length(-root_ - 1);
  double depth = 0;
  double expected = 0;
  double still_in = 1;  // probability the point has not been cut off yet
  const double feature_share = 1.0 / static_cast<double>(dimensions_);
  Child at = root_;
  while (at >= 0) {
    const double* node = &nodes_[static_cast<std::size_t>(at) * stride_];
    const double* box = node + 2;
    double cut_off = 0;
    for (std::size_t f = 0; f < dimensions_; ++f) {
      const double low = box[2 * f], high = box[2 * f + 1];
      const double outside = std::max(low - point[f], 0.0) + std::max(point[f] - high, 0.0);
      if (outside > 0) cut_off += outside / (high - low + outside);
    }
    cut_off *= feature_share;
    expected += still_in * cut_off * (depth + 1);
    still_in *= 1 - cut_off;
    const Unpacked links = unpack(node[1]);
    if (links.feature == kIdentical)  // not cut off: among the identical points
      return expected + still_in * (depth + average_path_length(-links.left - 1));
    at = point[links.feature] < node[0] ? links.left : links.right;
    depth += 1;
  }
  return expected + still_in * (depth + average_path_length(-at - 1));
}

}  // namespace supportd::obs::anomaly
