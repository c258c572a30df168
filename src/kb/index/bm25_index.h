// An in-memory BM25 index over documents given as term lists (see TextAnalyzer).
// Built once, then read-only. Thread-safe: search() may run on many threads at once.
#pragma once

#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace supportd::kb {

struct Bm25Params {
  float k1 = 1.2f;  // term-frequency saturation
  float b = 0.75f;  // document-length normalization
  // Multiplies the weight of function words ("how", "do", "the"): in a small knowledge base
  // their document frequency is too low for IDF alone to tell them from content words.
  float function_word_weight = 1.0f;
};

class Bm25Index {
 public:
  struct Hit {
    int document = 0;
    float score = 0;
    // The share of the query's term weight (IDF, function words weighted down; a term the
    // index has never seen weighs as much as the rarest) that occurs in this document: how much
    // of the question the document speaks about at all, comparable across questions.
    float overlap = 0;
  };

  // Indexes `documents` (document i = documents[i]); terms in `function_terms` weigh
  // params.function_word_weight as much.
  Bm25Index(const std::vector<std::vector<std::string>>& documents, Bm25Params params = {},
            const std::unordered_set<std::string>& function_terms = {});

  // The `k` best-scoring documents for `query` (repeated query terms count again), best first;
  // documents sharing no term with the query are never returned.
  std::vector<Hit> search(std::span<const std::string> query, int k) const;

  // Whether some document has `term`.
  bool contains(const std::string& term) const { return terms_.contains(term); }

  int size() const { return static_cast<int>(lengths_.size()); }
  int vocabulary() const { return static_cast<int>(postings_.size()); }

 private:
  struct Posting {
    int document;
    float frequency;
  };

  // The weight, for Hit::overlap, of a query term no document has (a known term's is its IDF).
  float unseen_term_weight(const std::string& term) const;

  Bm25Params params_;
  std::unordered_set<std::string> function_terms_;
  float unseen_idf_ = 0;  // the IDF of a term no document has
  std::unordered_map<std::string, int> terms_;
  std::vector<std::vector<Posting>> postings_;  // by term id
  std::vector<float> idf_;                      // by term id
  std::vector<float> lengths_;                  // by document
  float average_length_ = 1;
};

}  // namespace supportd::kb
