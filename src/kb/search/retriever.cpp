// The retriever (retriever.h): component names, and score(), where BM25, the classifiers and the
// encoder each propose candidate entries with their features in [0, 1]. For a traced request
// (a desk turn's retrieval stage), each component's work is a child span of the current one:
// `bm25`, `encoder knn`, `fasttext`, `encoder head`.
#include "kb/search/retriever.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "obs/trace/current.h"

namespace supportd::kb {
namespace {

constexpr int kLexicalDepth = 50;     // BM25 documents considered
constexpr int kVoteDepth = 10;        // documents that vote
constexpr int kDenseDepth = 50;       // nearest vectors considered
constexpr int kClassifierDepth = 20;  // most likely entries proposed by each classifier

}  // namespace

const char* component_name(Component component) {
  switch (component) {
    case Component::kBm25: return "bm25";
    case Component::kBm25Vote: return "bm25-vote";
    case Component::kClassifier: return "fasttext";
    case Component::kDense: return "encoder-knn";
    case Component::kDenseVote: return "encoder-vote";
    case Component::kHead: return "encoder-head";
  }
  return "bm25";
}

const char* component_title(Component component) {
  switch (component) {
    case Component::kBm25: return "BM25 nearest neighbour";
    case Component::kBm25Vote: return "BM25 10-neighbour vote";
    case Component::kClassifier: return "fastText classifier";
    case Component::kDense: return "encoder nearest neighbour";
    case Component::kDenseVote: return "encoder 10-neighbour vote";
    case Component::kHead: return "encoder softmax head";
  }
  return "";
}

Retriever::Retriever(RetrieverParts parts) : parts_(std::move(parts)) {}

Availability Retriever::available() const {
  Availability available{};
  available[static_cast<int>(Component::kBm25)] = parts_.bm25 != nullptr;
  available[static_cast<int>(Component::kBm25Vote)] = parts_.bm25 != nullptr;
  available[static_cast<int>(Component::kClassifier)] = !parts_.classifiers.empty();
  available[static_cast<int>(Component::kDense)] = parts_.dense != nullptr;
  available[static_cast<int>(Component::kDenseVote)] = parts_.dense != nullptr;
  available[static_cast<int>(Component::kHead)] = parts_.head != nullptr;
  return available;
}

std::vector<Candidate> Retriever::score(const Query& query) const {
  std::vector<Candidate> candidates;
  std::unordered_map<int, std::size_t> slot;
  const auto at = [&](int entry) -> Candidate& {
    auto [it, fresh] = slot.emplace(entry, candidates.size());
    if (fresh) candidates.push_back({entry, {}, -1, {}});
    return candidates[it->second];
  };

  if (parts_.bm25) {
    obs::trace::ScopedSpan span("bm25");
    const auto hits = parts_.bm25->search(query.terms, kLexicalDepth);
    span.set("supportd.retrieval.hits", static_cast<std::int64_t>(hits.size()));
    if (!hits.empty()) {
      const float best = hits.front().score;
      float vote_total = 0;
      for (std::size_t i = 0; i < hits.size() && i < kVoteDepth; ++i)
        vote_total += hits[i].score;
      for (std::size_t i = 0; i < hits.size(); ++i) {
        const int entry = parts_.document_entry[static_cast<std::size_t>(hits[i].document)];
        Candidate& candidate = at(entry);
        const float relative = hits[i].score / best;
        if (relative > candidate.features[slot::kBm25]) {
          candidate.features[slot::kBm25] = relative;
          candidate.best_document = hits[i].document;
          candidate.evidence.lexical = hits[i].score;
        }
        candidate.evidence.overlap = std::max(candidate.evidence.overlap, hits[i].overlap);
        if (i < kVoteDepth) candidate.features[slot::kBm25Vote] += hits[i].score / vote_total;
      }
    }
  }
  const bool dense = !query.vector.empty();
  if (dense && parts_.dense) {
    obs::trace::ScopedSpan span("encoder knn");
    const auto hits = parts_.dense->search(query.vector, kDenseDepth);
    span.set("supportd.retrieval.hits", static_cast<std::int64_t>(hits.size()));
    if (!hits.empty()) {
      const float best = hits.front().similarity;
      float vote_total = 0;
      std::vector<float> weights(hits.size());
      for (std::size_t i = 0; i < hits.size(); ++i) {
        weights[i] = std::exp((hits[i].similarity - best) / kDenseTemperature);
        if (i < kVoteDepth) vote_total += weights[i];
      }
      for (std::size_t i = 0; i < hits.size(); ++i) {
        const int document = parts_.dense_document[static_cast<std::size_t>(hits[i].row)];
        Candidate& candidate = at(parts_.document_entry[static_cast<std::size_t>(document)]);
        if (weights[i] > candidate.features[slot::kDense]) {
          candidate.features[slot::kDense] = weights[i];
          candidate.evidence.similarity = hits[i].similarity;
          if (candidate.best_document < 0) candidate.best_document = document;
        }
        if (i < kVoteDepth) candidate.features[slot::kDenseVote] += weights[i] / vote_total;
      }
    }
  }
  // Classifiers score every entry; propose their most likely ones and fill in the rest.
  std::vector<float> classifier_probability;
  if (!parts_.classifiers.empty()) {
    obs::trace::ScopedSpan span("fasttext");
    span.set("supportd.retrieval.models", static_cast<std::int64_t>(parts_.classifiers.size()));
    for (const auto& classifier : parts_.classifiers) {
      const std::vector<float> probabilities = classifier->predict(query.classifier_text);
      if (classifier_probability.empty()) classifier_probability.assign(probabilities.size(), 0.0f);
      for (std::size_t i = 0; i < probabilities.size(); ++i) {
        classifier_probability[i] +=
            probabilities[i] / static_cast<float>(parts_.classifiers.size());
      }
    }
    std::vector<int> order(classifier_probability.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      order[i] = static_cast<int>(i);
    const std::size_t depth = std::min<std::size_t>(kClassifierDepth, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(depth),
                      order.end(), [&](int a, int b) {
                        return classifier_probability[static_cast<std::size_t>(a)] >
                               classifier_probability[static_cast<std::size_t>(b)];
                      });
    for (std::size_t i = 0; i < depth; ++i) {
      if (classifier_probability[static_cast<std::size_t>(order[i])] > 0) at(order[i]);
    }
  }
  std::unordered_map<int, float> head_probability;
  if (dense && parts_.head) {
    obs::trace::ScopedSpan span("encoder head");
    auto scores = parts_.head->predict(query.vector);
    for (const auto& score : scores)
      head_probability[score.target] = score.probability;
    const std::size_t depth = std::min<std::size_t>(kClassifierDepth, scores.size());
    std::partial_sort(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(depth),
                      scores.end(), [](const SoftmaxHead::Score& a, const SoftmaxHead::Score& b) {
                        return a.probability > b.probability;
                      });
    for (std::size_t i = 0; i < depth; ++i)
      at(scores[i].target);
  }
  for (Candidate& candidate : candidates) {
    const auto entry = static_cast<std::size_t>(candidate.entry);
    if (entry < classifier_probability.size()) {
      candidate.features[slot::kClassifier] = classifier_probability[entry];
    }
    if (auto it = head_probability.find(candidate.entry); it != head_probability.end()) {
      candidate.features[slot::kHead] = it->second;
    }
  }
  return candidates;
}

}  // namespace supportd::kb
