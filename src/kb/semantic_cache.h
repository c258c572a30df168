// The semantic answer cache: a question whose vector is close enough to a cached question's is
// answered with the cached answer. "Close enough" is a cosine threshold calibrated on held-out
// paraphrase pairs drawn from labelled questions (calibrate_semantic_cache), so that wrong hits
// (the nearest cached question has another label) stay under a target rate.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <span>
#include <string>
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

class SemanticCache {
 public:
  struct Hit {
    std::string question;  // the cached question that matched
    std::string answer;    // what was stored with it (the desk's serialized response)
    double similarity = 0;
  };

  // `threshold`: from calibrate_semantic_cache (or KnowledgeBase::semantic_cache()).
  // Holds at most `capacity` questions, dropping the least recently used.
  SemanticCache(int dimensions, double threshold, std::size_t capacity);

  // The most similar cached question at or above the threshold, stored under `scope` (e.g. the
  // knowledge-base version, so answers never outlive the knowledge they came from).
  std::optional<Hit> lookup(std::span<const float> vector, std::string_view scope) const;

  // Stores an answer; fails when the vector does not have `dimensions` floats.
  Status insert(std::span<const float> vector, std::string_view scope, std::string question,
                std::string answer);

  // Drops every entry (e.g. after a knowledge-base reload).
  void clear();

  std::size_t size() const;
  double threshold() const { return threshold_; }

 private:
  struct Item {
    std::vector<float> vector;
    std::string scope;
    std::string question;
    std::string answer;
  };

  const int dimensions_;
  const double threshold_;
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  mutable std::list<Item> items_;  // most recently used first; guarded by mutex_
};

}  // namespace supportd::kb
