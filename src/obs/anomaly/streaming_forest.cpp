#include "obs/anomaly/streaming_forest.h"

#include <cmath>
#include <numeric>

namespace supportd::obs::anomaly {

StreamingForest::StreamingForest(std::size_t dimensions, const ForestOptions& options,
                                 std::uint64_t seed)
    : dimensions_(dimensions), options_(options), random_(seed) {}

std::optional<double> StreamingForest::score(std::span<const double> point) const {
  if (trees_.empty()) return std::nullopt;
  double total = 0, normaliser = 0;
  for (const IsolationTree& tree : trees_) {
    total += tree.path_length(point);
    normaliser += average_path_length(static_cast<double>(tree.sample_size()));
  }
  // Trees built while the window was filling have smaller samples: normalise by the mean c(n).
  return std::exp2(-total / normaliser);
}

std::optional<double> StreamingForest::score_and_learn(std::span<const double> point) {
  const auto result = score(point);
  window_.insert(window_.end(), point.begin(), point.end());
  while (window_.size() > options_.window * dimensions_)
    window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(dimensions_));

  if (window_size() < options_.min_points) return result;
  if (trees_.size() < options_.trees) {
    add_tree();  // filling the forest: a tree per point until it is full
  } else if (++since_refresh_ >= options_.refresh_every) {
    since_refresh_ = 0;
    trees_.pop_front();
    add_tree();
  }
  return result;
}

void StreamingForest::add_tree() {
  const std::size_t rows = window_size();
  const std::size_t take = std::min(rows, options_.sample_size);
  // A uniform sample without replacement: the first `take` places of a partial shuffle.
  thread_local std::vector<std::uint32_t> order;
  order.resize(rows);
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t i = 0; i < take; ++i)
    std::swap(order[i], order[i + random_.below(rows - i)]);
  sample_points_.resize(take * dimensions_);
  for (std::size_t i = 0; i < take; ++i) {
    for (std::size_t f = 0; f < dimensions_; ++f)
      sample_points_[i * dimensions_ + f] = window_[order[i] * dimensions_ + f];
  }
  std::vector<std::uint32_t> sample(take);
  std::iota(sample.begin(), sample.end(), 0u);
  const int height_limit =
      options_.height_limit > 0
          ? static_cast<int>(options_.height_limit)
          : static_cast<int>(
                std::ceil(std::log2(static_cast<double>(std::max<std::size_t>(take, 2)))));
  trees_.emplace_back(sample_points_, dimensions_, std::move(sample), height_limit, random_);
}

}  // namespace supportd::obs::anomaly
