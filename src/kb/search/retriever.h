// The retrieval components over one set of documents, and the candidate entries they propose
// for a query with every component's feature. Used by search (over all documents) and by
// import's tuning (over the training part, scoring the dev part). Internal to kb/.
// Read-only after construction. Thread-safe: score() may run on many threads at once.
#pragma once

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kb/classify/intent_classifier.h"
#include "kb/classify/softmax_head.h"
#include "kb/index/bm25_index.h"
#include "kb/index/dense_index.h"

namespace supportd::kb {

enum class Component {
  kBm25,        // BM25 nearest document: its score over the best score
  kBm25Vote,    // share of the ten best documents' BM25 score
  kClassifier,  // fastText probability (the average of the models in the ensemble)
  kDense,       // encoder nearest neighbour: exp((cosine - best cosine) / 0.05)
  kDenseVote,   // share of the ten nearest vectors' exp((cosine - best) / 0.05)
  kHead,        // softmax head probability on the query vector
};
inline constexpr int kComponentCount = 6;
// Each component's place in Features and Availability.
namespace slot {
inline constexpr auto kBm25 = static_cast<std::size_t>(Component::kBm25);
inline constexpr auto kBm25Vote = static_cast<std::size_t>(Component::kBm25Vote);
inline constexpr auto kClassifier = static_cast<std::size_t>(Component::kClassifier);
inline constexpr auto kDense = static_cast<std::size_t>(Component::kDense);
inline constexpr auto kDenseVote = static_cast<std::size_t>(Component::kDenseVote);
inline constexpr auto kHead = static_cast<std::size_t>(Component::kHead);
}  // namespace slot
inline constexpr std::array<Component, kComponentCount> kComponents = {
    Component::kBm25,  Component::kBm25Vote,  Component::kClassifier,
    Component::kDense, Component::kDenseVote, Component::kHead};

// True for the components that need the question's vector.
constexpr bool needs_vector(Component component) {
  return component == Component::kDense || component == Component::kDenseVote ||
         component == Component::kHead;
}

// "bm25", "bm25-vote", "fasttext", "encoder-knn", "encoder-vote", "encoder-head".
const char* component_name(Component component);
// A readable description for reports ("BM25 nearest neighbour", ...).
const char* component_title(Component component);

// The temperature of the dense features: exp((cosine - best cosine) / kDenseTemperature).
inline constexpr float kDenseTemperature = 0.05f;

using Features = std::array<float, kComponentCount>;
using Availability = std::array<bool, kComponentCount>;

// What a candidate's features are relative to can leave: absolute evidence of how close the
// question is to the entry at all, for the out-of-scope decision (scope.h) and for scoring a
// question as if its entry were not in the knowledge base (tuning.h).
struct Evidence {
  float lexical = 0;     // BM25 score of the entry's best document (0: not among BM25's hits)
  float overlap = 0;     // Bm25Index::Hit::overlap of that document
  float similarity = 0;  // cosine of the entry's nearest vector (0: not among the nearest)
};

struct Candidate {
  int entry = 0;
  Features features{};
  int best_document = -1;  // the entry's best-matching document (lexical, else dense), or -1
  Evidence evidence;
};

struct Query {
  std::vector<std::string> terms;  // BM25 terms
  std::string classifier_text;     // fastText input (joined terms)
  std::span<const float> vector;   // empty: no dense components for this query
};

struct RetrieverParts {
  int entry_count = 0;
  std::vector<int> document_entry;   // BM25 document -> entry
  std::vector<int> document_source;  // BM25 document -> corpus document
  std::unique_ptr<Bm25Index> bm25;
  std::vector<std::unique_ptr<IntentClassifier>> classifiers;  // averaged; may be empty
  std::unique_ptr<DenseIndex> dense;                           // optional
  std::vector<int> dense_document;                             // dense row -> BM25 document
  std::unique_ptr<SoftmaxHead> head;                           // optional
};

class Retriever {
 public:
  explicit Retriever(RetrieverParts parts);

  // Candidates from every available component (BM25's 50 best documents, the dense index's 50
  // nearest, the classifiers' 20 most likely entries), each with all features.
  std::vector<Candidate> score(const Query& query) const;

  // Which components this retriever has (dense ones only when a query brings a vector).
  Availability available() const;

  const RetrieverParts& parts() const { return parts_; }

 private:
  RetrieverParts parts_;
};

}  // namespace supportd::kb
