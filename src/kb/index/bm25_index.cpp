// BM25 (bm25_index.h): postings per term built once, function words weighted down, documents
// scored term by term and the best k returned.
#include "kb/index/bm25_index.h"

#include <algorithm>
#include <cmath>

namespace supportd::kb {

Bm25Index::Bm25Index(const std::vector<std::vector<std::string>>& documents, Bm25Params params,
                     const std::unordered_set<std::string>& function_terms)
    : params_(params), function_terms_(function_terms) {
  lengths_.reserve(documents.size());
  double total_length = 0;
  std::unordered_map<int, int> counts;
  for (std::size_t d = 0; d < documents.size(); ++d) {
    counts.clear();
    for (const std::string& term : documents[d]) {
      auto [it, fresh] = terms_.emplace(term, static_cast<int>(postings_.size()));
      if (fresh) postings_.emplace_back();
      ++counts[it->second];
    }
    for (const auto& [term, count] : counts) {
      postings_[static_cast<std::size_t>(term)].push_back(
          {static_cast<int>(d), static_cast<float>(count)});
    }
    lengths_.push_back(static_cast<float>(documents[d].size()));
    total_length += static_cast<double>(documents[d].size());
  }
  if (!documents.empty() && total_length > 0) {
    average_length_ = static_cast<float>(total_length / static_cast<double>(documents.size()));
  }
  const double n = static_cast<double>(documents.size());
  idf_.reserve(postings_.size());
  for (auto& list : postings_) {
    std::sort(list.begin(), list.end(),
              [](const Posting& a, const Posting& b) { return a.document < b.document; });
    const double df = static_cast<double>(list.size());
    idf_.push_back(static_cast<float>(std::log(1.0 + (n - df + 0.5) / (df + 0.5))));
  }
  unseen_idf_ = static_cast<float>(std::log(1.0 + (n + 0.5) / 0.5));
  for (const std::string& term : function_terms) {
    if (auto it = terms_.find(term); it != terms_.end()) {
      idf_[static_cast<std::size_t>(it->second)] *= params_.function_word_weight;
    }
  }
}

float Bm25Index::unseen_term_weight(const std::string& term) const {
  return function_terms_.contains(term) ? unseen_idf_ * params_.function_word_weight : unseen_idf_;
}

std::vector<Bm25Index::Hit> Bm25Index::search(std::span<const std::string> query, int k) const {
  // Scores (and the matched query weight) accumulate in per-thread arrays; only touched
  // documents are visited and reset.
  thread_local std::vector<float> scores;
  thread_local std::vector<float> matched;
  thread_local std::vector<int> touched;
  if (scores.size() < lengths_.size()) {
    scores.assign(lengths_.size(), 0.0f);
    matched.assign(lengths_.size(), 0.0f);
  }
  touched.clear();
  float query_weight = 0;
  for (const std::string& term : query) {
    auto it = terms_.find(term);
    if (it == terms_.end()) {
      query_weight += unseen_term_weight(term);
      continue;
    }
    const auto id = static_cast<std::size_t>(it->second);
    const float idf = idf_[id];
    query_weight += idf;
    for (const Posting& posting : postings_[id]) {
      const auto d = static_cast<std::size_t>(posting.document);
      const float norm = params_.k1 * (1 - params_.b + params_.b * lengths_[d] / average_length_);
      const float gain = idf * posting.frequency * (params_.k1 + 1) / (posting.frequency + norm);
      if (scores[d] == 0.0f) touched.push_back(posting.document);
      scores[d] += gain;
      matched[d] += idf;
    }
  }
  std::vector<Hit> hits;
  hits.reserve(touched.size());
  for (int d : touched) {
    const auto index = static_cast<std::size_t>(d);
    if (scores[index] > 0) {
      hits.push_back({d, scores[index], std::min(1.0f, matched[index] / query_weight)});
    }
    scores[index] = 0.0f;
    matched[index] = 0.0f;
  }
  const auto better = [](const Hit& a, const Hit& b) {
    return a.score != b.score ? a.score > b.score : a.document < b.document;
  };
  const std::size_t keep = std::min(hits.size(), static_cast<std::size_t>(std::max(k, 0)));
  std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(keep), hits.end(),
                    better);
  hits.resize(keep);
  return hits;
}

}  // namespace supportd::kb
