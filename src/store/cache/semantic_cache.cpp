// The semantic answer cache (semantic_cache.h): a linear scan of the scope's cached vectors
// for the most similar (inner product of unit vectors, with Eigen), an LRU list under one mutex.
#include "store/cache/semantic_cache.h"

#include <Eigen/Core>

#include <algorithm>

namespace supportd::store {
namespace {

// The same inner product as the knowledge base's nearest-vector search (kb/index/dense_index),
// so a cached question is as similar here as it was when the threshold was calibrated.
float dot(std::span<const float> a, std::span<const float> b) {
  const Eigen::Map<const Eigen::VectorXf> x(a.data(), static_cast<Eigen::Index>(a.size()));
  const Eigen::Map<const Eigen::VectorXf> y(b.data(), static_cast<Eigen::Index>(b.size()));
  return x.dot(y);
}

}  // namespace

SemanticCache::SemanticCache(int dimensions, double threshold, std::size_t capacity)
    : dimensions_(dimensions),
      threshold_(threshold),
      capacity_(std::max<std::size_t>(capacity, 1)) {}

std::optional<SemanticCache::Hit> SemanticCache::lookup(std::span<const float> vector,
                                                        std::string_view scope) const {
  if (static_cast<int>(vector.size()) != dimensions_) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto best = items_.end();
  float best_similarity = -2;
  for (auto it = items_.begin(); it != items_.end(); ++it) {
    if (it->scope != scope) continue;
    const float similarity = dot(vector, it->vector);
    if (similarity > best_similarity) {
      best_similarity = similarity;
      best = it;
    }
  }
  if (best == items_.end() || best_similarity < threshold_) return std::nullopt;
  items_.splice(items_.begin(), items_, best);
  return Hit{best->question, best->answer, best_similarity};
}

Status SemanticCache::insert(std::span<const float> vector, std::string_view scope,
                             std::string question, std::string answer) {
  if (static_cast<int>(vector.size()) != dimensions_) {
    return Error::invalid("semantic cache: vector has " + std::to_string(vector.size()) +
                          " dimensions, the cache " + std::to_string(dimensions_));
  }
  std::lock_guard lock(mutex_);
  items_.push_front({std::vector<float>(vector.begin(), vector.end()), std::string(scope),
                     std::move(question), std::move(answer)});
  while (items_.size() > capacity_)
    items_.pop_back();
  return {};
}

void SemanticCache::clear() {
  std::lock_guard lock(mutex_);
  items_.clear();
}

std::size_t SemanticCache::size() const {
  std::lock_guard lock(mutex_);
  return items_.size();
}

}  // namespace supportd::store
