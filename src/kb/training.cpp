#include "kb/training.h"

#include <set>

#include "core/progress.h"

namespace supportd::kb {

bool classifier_worthwhile(const Corpus& corpus, const std::vector<bool>& include,
                           std::string& why) {
  std::set<int> classes;
  std::size_t questions = 0;
  for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
    if (!include[d] || corpus.documents[d].kind != DocumentKind::kQuestion) continue;
    classes.insert(corpus.documents[d].entry);
    ++questions;
  }
  if (classes.size() < 2) {
    why = "fewer than two entries have questions";
    return false;
  }
  if (questions < 2 * classes.size()) {
    why = "fewer than two questions per entry on average (" + std::to_string(questions) +
          " questions, " + std::to_string(classes.size()) + " entries)";
    return false;
  }
  if (classes.size() > 2000) {
    why = "more than 2000 entries have questions (" + std::to_string(classes.size()) + ")";
    return false;
  }
  return true;
}

Result<std::unique_ptr<IntentClassifier>> train_classifier(const Corpus& corpus,
                                                           const std::vector<bool>& include,
                                                           const ClassifierParams& params,
                                                           const std::string& work_dir,
                                                           const std::string& label) {
  std::vector<std::string> texts;
  std::vector<int> classes;
  for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
    if (!include[d] || corpus.documents[d].kind != DocumentKind::kQuestion) continue;
    texts.push_back(corpus.classifier_texts[d]);
    classes.push_back(corpus.documents[d].entry);
  }
  ProgressBar bar(label, 1000);
  auto classifier = IntentClassifier::train(
      texts, classes, static_cast<int>(corpus.entries.size()), params, work_dir,
      [&](double done) { bar.update(static_cast<std::int64_t>(done * 1000)); });
  bar.finish();
  return classifier;
}

Result<std::unique_ptr<SoftmaxHead>> train_head(const Corpus& corpus,
                                                const std::vector<bool>& include,
                                                const HeadParams& params,
                                                const std::string& label) {
  const auto dimensions = static_cast<std::size_t>(corpus.vectors.dimensions);
  std::vector<float> vectors;
  std::vector<int> targets;
  for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
    const int row = corpus.vector_row[d];
    if (!include[d] || row < 0 || corpus.documents[d].kind != DocumentKind::kQuestion) continue;
    const auto start = corpus.vectors.values.begin() +
                       static_cast<std::ptrdiff_t>(static_cast<std::size_t>(row) * dimensions);
    vectors.insert(vectors.end(), start, start + static_cast<std::ptrdiff_t>(dimensions));
    targets.push_back(corpus.documents[d].entry);
  }
  ProgressBar bar(label, 1000);
  auto head =
      SoftmaxHead::train(vectors, corpus.vectors.dimensions, targets, params,
                         [&](double done) { bar.update(static_cast<std::int64_t>(done * 1000)); });
  bar.finish();
  return head;
}

Result<RetrieverParts> build_parts(const Corpus& corpus, const std::vector<bool>& include,
                                   const ComponentChoices& choices,
                                   std::unique_ptr<IntentClassifier> classifier,
                                   std::unique_ptr<SoftmaxHead> head,
                                   const std::string& graph_path) {
  RetrieverParts parts;
  parts.entry_count = static_cast<int>(corpus.entries.size());
  std::vector<std::vector<std::string>> bm25_documents;
  std::vector<int> bm25_index_of(corpus.documents.size(), -1);
  for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
    if (!include[d]) continue;
    bm25_index_of[d] = static_cast<int>(bm25_documents.size());
    bm25_documents.push_back(corpus.bm25_terms[d]);
    parts.document_entry.push_back(corpus.documents[d].entry);
    parts.document_source.push_back(static_cast<int>(d));
  }
  parts.bm25 = std::make_unique<Bm25Index>(bm25_documents, choices.bm25);
  if (corpus.vectors.dimensions > 0) {
    const auto dimensions = static_cast<std::size_t>(corpus.vectors.dimensions);
    std::vector<float> values;
    for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
      const int row = corpus.vector_row[d];
      if (!include[d] || row < 0) continue;
      const auto start = corpus.vectors.values.begin() +
                         static_cast<std::ptrdiff_t>(static_cast<std::size_t>(row) * dimensions);
      values.insert(values.end(), start, start + static_cast<std::ptrdiff_t>(dimensions));
      parts.dense_document.push_back(bm25_index_of[d]);
    }
    if (!values.empty()) {
      auto dense = DenseIndex::build(std::move(values), corpus.vectors.dimensions,
                                     choices.dense_exact_limit, graph_path);
      if (!dense) return dense.error();
      parts.dense = std::move(*dense);
    }
  }
  parts.classifier = std::move(classifier);
  parts.head = std::move(head);
  return parts;
}

}  // namespace supportd::kb
