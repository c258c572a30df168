// The semantic answer cache's threshold, chosen at import: the lowest cosine at which a
// held-out question's nearest cached question (one of the imported training questions) has
// another label at most a target share of the time. The cache itself is the desk's
// (store/cache/semantic_cache.h); the knowledge base records the threshold in its manifest.
// Thread-safe (pure function).
#pragma once

#include <span>
#include <vector>

#include "core/status.h"

namespace supportd::kb {

struct SemanticCacheCalibration {
  double threshold = 1.0;     // cosine at or above which a cached answer is reused
  double wrong_hit_rate = 0;  // among held-out questions that hit: nearest had another label
  double hit_rate = 0;        // held-out questions that hit at the threshold
  double target_wrong_rate = 0.01;
  int questions = 0;  // held-out questions used
  int cached = 0;     // cached questions they were matched against
};

// Picks the lowest cosine threshold at which, matching every `queries` vector to its nearest
// `cached` vector, the share of hits whose labels differ stays at or under `target_wrong_rate`.
// Vectors are L2-normalized rows of `dimensions` floats. Fails on empty or mismatched input.
Result<SemanticCacheCalibration> calibrate_semantic_cache(std::span<const float> cached,
                                                          const std::vector<int>& cached_labels,
                                                          std::span<const float> queries,
                                                          const std::vector<int>& query_labels,
                                                          int dimensions,
                                                          double target_wrong_rate = 0.01);

}  // namespace supportd::kb
