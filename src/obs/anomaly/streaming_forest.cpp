// The isolation forest over a sliding window: scoring a point, then refreshing the oldest tree.
#include "obs/anomaly/streaming_forest.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace supportd::obs::anomaly {

StreamingForest::StreamingForest(std::size_t dimensions, const ForestOptions& options,
                                 std::uint64_t seed)
    : dimensions_(dimensions),
      options_(options),
      random_(seed),
      window_(options.window * dimensions) {}

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
  std::copy(point.begin(), point.end(),
            window_.begin() + static_cast<std::ptrdiff_t>(next_ * dimensions_));
  if (size_ < options_.window) {
    slots_.push_back(static_cast<std::uint32_t>(next_));
    ++size_;
  }
  next_ = (next_ + 1) % options_.window;

  if (size_ < options_.min_points) return result;
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
  // A uniform sample of the window without replacement: the first `take` places of a partial
  // shuffle of the slot permutation (any permutation will do, so it is kept between trees).
  const std::size_t take = std::min(size_, options_.sample_size);
  for (std::size_t i = 0; i < take; ++i)
    std::swap(slots_[i], slots_[i + random_.below(size_ - i)]);
  sample_.resize(take * dimensions_);
  for (std::size_t i = 0; i < take; ++i) {
    std::copy_n(window_.begin() + static_cast<std::ptrdiff_t>(slots_[i] * dimensions_), dimensions_,
                sample_.begin() + static_cast<std::ptrdiff_t>(i * dimensions_));
  }
  rows_.resize(take);
  std::iota(rows_.begin(), rows_.end(), 0u);
  trees_.emplace_back(sample_, dimensions_, rows_, static_cast<int>(options_.height_limit),
                      random_);
}

}  // namespace supportd::obs::anomaly
