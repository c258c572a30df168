// Calibrating the semantic cache's threshold (semantic_cache_threshold.h): every held-out
// question against its nearest cached question (DenseIndex), sorted by similarity;
// the lowest similarity whose wrong-hit share is within the target wins.
#include "kb/train/semantic_cache_threshold.h"

#include <algorithm>
#include <utility>

#include "kb/index/dense_index.h"

namespace supportd::kb {

Result<SemanticCacheCalibration> calibrate_semantic_cache(std::span<const float> cached,
                                                          const std::vector<int>& cached_labels,
                                                          std::span<const float> queries,
                                                          const std::vector<int>& query_labels,
                                                          int dimensions,
                                                          double target_wrong_rate) {
  const auto d = static_cast<std::size_t>(dimensions);
  if (dimensions <= 0 || cached_labels.empty() || query_labels.empty() ||
      cached.size() != cached_labels.size() * d || queries.size() != query_labels.size() * d) {
    return Error::invalid("semantic cache calibration needs labelled cached and query vectors");
  }
  auto index = DenseIndex::build(std::vector<float>(cached.begin(), cached.end()), dimensions);
  if (!index) return index.error();
  // Each held-out question against its nearest cached question: (similarity, same label).
  std::vector<std::pair<float, bool>> pairs;
  pairs.reserve(query_labels.size());
  for (std::size_t q = 0; q < query_labels.size(); ++q) {
    const auto hits = (*index)->search(queries.subspan(q * d, d), 1);
    if (hits.empty()) continue;
    pairs.emplace_back(hits[0].similarity,
                       cached_labels[static_cast<std::size_t>(hits[0].row)] == query_labels[q]);
  }
  std::sort(pairs.begin(), pairs.end(), [](auto& a, auto& b) { return a.first > b.first; });
  SemanticCacheCalibration calibration;
  calibration.target_wrong_rate = target_wrong_rate;
  calibration.questions = static_cast<int>(query_labels.size());
  calibration.cached = static_cast<int>(cached_labels.size());
  calibration.threshold = 1.0;
  double wrong = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (!pairs[i].second) ++wrong;
    const bool boundary = i + 1 == pairs.size() || pairs[i + 1].first < pairs[i].first;
    const double rate = wrong / static_cast<double>(i + 1);
    if (boundary && rate <= target_wrong_rate) {
      calibration.threshold = pairs[i].first;
      calibration.wrong_hit_rate = rate;
      calibration.hit_rate = static_cast<double>(i + 1) / static_cast<double>(query_labels.size());
    }
  }
  return calibration;
}

}  // namespace supportd::kb
