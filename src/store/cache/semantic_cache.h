// The semantic answer cache: a question whose vector is close enough to a cached question's is
// answered with the cached answer. "Close enough" is a cosine threshold the knowledge base
// calibrates at import on held-out paraphrases (kb/train/semantic_cache_threshold.h), so that
// wrong hits (the nearest cached question has another label) stay under a target rate. The
// desk owns one, beside the exact-match answer cache (answer_cache.h).
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

namespace supportd::store {

class SemanticCache {
 public:
  struct Hit {
    std::string question;  // the cached question that matched
    std::string answer;    // what was stored with it (the desk's serialized response)
    double similarity = 0;
  };

  // `threshold`: from KnowledgeBase::semantic_cache() (calibrated at import).
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
  std::size_t capacity() const { return capacity_; }
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

}  // namespace supportd::store
