// Training (training.h): fastText and the head over a subset of the documents, the settings
// chosen on the dev split, cross-fitted scores of every fold, and the retriever's parts.
#include "kb/train/training.h"

#include <algorithm>
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
    if (!include[d]) continue;
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
    if (!include[d] || row < 0) continue;
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

namespace {

// Share of `dev` documents whose entry has the highest averaged probability.
double classifier_top1(const Corpus& corpus,
                       const std::vector<const IntentClassifier*>& classifiers,
                       const std::vector<std::size_t>& dev) {
  if (dev.empty() || classifiers.empty()) return 0;
  double right = 0;
  for (std::size_t d : dev) {
    std::vector<float> total;
    for (const IntentClassifier* classifier : classifiers) {
      const std::vector<float> probabilities = classifier->predict(corpus.classifier_texts[d]);
      if (total.empty()) total.assign(probabilities.size(), 0.0f);
      for (std::size_t i = 0; i < probabilities.size(); ++i)
        total[i] += probabilities[i];
    }
    const auto best = std::max_element(total.begin(), total.end());
    if (best - total.begin() == corpus.documents[d].entry) ++right;
  }
  return right / static_cast<double>(dev.size());
}

double head_top1(const Corpus& corpus, const SoftmaxHead& head,
                 const std::vector<std::size_t>& dev) {
  double right = 0, total = 0;
  const auto dimensions = static_cast<std::size_t>(corpus.vectors.dimensions);
  for (std::size_t d : dev) {
    const int row = corpus.vector_row[d];
    if (row < 0) continue;
    const auto scores =
        head.predict(std::span<const float>(corpus.vectors.values)
                         .subspan(static_cast<std::size_t>(row) * dimensions, dimensions));
    const auto best = std::max_element(scores.begin(), scores.end(), [](auto& a, auto& b) {
      return a.probability < b.probability;
    });
    if (best != scores.end() && best->target == corpus.documents[d].entry) ++right;
    ++total;
  }
  return total > 0 ? right / total : 0;
}

}  // namespace

Result<ClassifierChoice> choose_classifiers(const Corpus& corpus, const std::vector<bool>& train,
                                            const std::vector<std::size_t>& dev,
                                            const std::vector<ClassifierParams>& grid,
                                            const std::string& work_dir) {
  std::vector<std::unique_ptr<IntentClassifier>> trained;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const std::string label =
        "tuning fastText " + std::to_string(i + 1) + "/" + std::to_string(grid.size());
    auto model = train_classifier(corpus, train, grid[i], work_dir, label);
    if (!model) return model.error();
    trained.push_back(std::move(*model));
  }
  // Candidates: every model alone, then (with more than one) all of them averaged.
  std::vector<std::vector<std::size_t>> options;
  for (std::size_t i = 0; i < grid.size(); ++i)
    options.push_back({i});
  if (grid.size() > 1) {
    options.emplace_back();
    for (std::size_t i = 0; i < grid.size(); ++i)
      options.back().push_back(i);
  }
  ClassifierChoice choice;
  choice.top1 = -1;
  std::vector<std::size_t> best;
  for (const auto& option : options) {
    std::vector<const IntentClassifier*> models;
    for (std::size_t i : option)
      models.push_back(trained[i].get());
    const double top1 = classifier_top1(corpus, models, dev);
    if (top1 > choice.top1) {
      choice.top1 = top1;
      best = option;
    }
  }
  for (std::size_t i : best) {
    choice.params.push_back(grid[i]);
    choice.models.push_back(std::move(trained[i]));
  }
  return choice;
}

Result<HeadChoice> choose_head(const Corpus& corpus, const std::vector<bool>& train,
                               const std::vector<std::size_t>& dev,
                               const std::vector<HeadParams>& grid) {
  HeadChoice choice;
  choice.top1 = -1;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    const std::string label =
        "tuning softmax head " + std::to_string(i + 1) + "/" + std::to_string(grid.size());
    auto head = train_head(corpus, train, grid[i], label);
    if (!head) return head.error();
    const double top1 = head_top1(corpus, **head, dev);
    if (top1 > choice.top1) {
      choice.top1 = top1;
      choice.params = grid[i];
      choice.head = std::move(*head);
    }
  }
  return choice;
}

float choose_function_word_weight(const Corpus& corpus, const std::vector<bool>& train,
                                  const std::vector<std::size_t>& dev, Bm25Params params) {
  std::vector<std::vector<std::string>> documents;
  std::vector<int> entry_of;
  for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
    if (!train[d]) continue;
    documents.push_back(corpus.bm25_terms[d]);
    entry_of.push_back(corpus.documents[d].entry);
  }
  float best_weight = kFunctionWordWeights[0];
  int best = -1;
  for (float weight : kFunctionWordWeights) {
    params.function_word_weight = weight;
    const Bm25Index index(documents, params, corpus.function_terms);
    int right = 0;
    for (std::size_t d : dev) {
      const auto hits = index.search(corpus.bm25_terms[d], 1);
      if (!hits.empty() &&
          entry_of[static_cast<std::size_t>(hits[0].document)] == corpus.documents[d].entry) {
        ++right;
      }
    }
    if (right > best) {
      best = right;
      best_weight = weight;
    }
  }
  return best_weight;
}

Result<FoldScores> score_folds(const Corpus& corpus, const std::vector<int>& fold_of, int folds,
                               const ComponentChoices& choices,
                               std::vector<std::unique_ptr<IntentClassifier>> first_classifiers,
                               std::unique_ptr<SoftmaxHead> first_head,
                               const std::string& work_dir) {
  FoldScores scores;
  const bool with_vectors =
      corpus.vectors.dimensions > 0 && !corpus.vectors.document_of_row.empty();
  const auto dimensions = static_cast<std::size_t>(corpus.vectors.dimensions);
  for (int fold = 0; fold < folds; ++fold) {
    const std::string name = std::to_string(fold + 1) + "/" + std::to_string(folds);
    std::vector<bool> train(corpus.documents.size());
    std::vector<std::size_t> held_out;
    for (std::size_t d = 0; d < corpus.documents.size(); ++d) {
      train[d] = fold_of[d] != fold;
      if (!train[d]) held_out.push_back(d);
    }
    if (held_out.empty()) continue;
    std::vector<std::unique_ptr<IntentClassifier>> classifiers;
    std::unique_ptr<SoftmaxHead> head;
    std::string why;
    if (fold == 0) {
      classifiers = std::move(first_classifiers);
      head = std::move(first_head);
    } else {
      if (!choices.classifiers.empty() && classifier_worthwhile(corpus, train, why)) {
        for (const ClassifierParams& params : choices.classifiers) {
          auto model =
              train_classifier(corpus, train, params, work_dir, "cross-fitting fastText " + name);
          if (!model) return model.error();
          classifiers.push_back(std::move(*model));
        }
      }
      if (choices.head && with_vectors) {
        auto trained = train_head(corpus, train, choices.head_params, "cross-fitting head " + name);
        if (!trained) return trained.error();
        head = std::move(*trained);
      }
    }
    auto parts = build_parts(corpus, train, choices, std::move(classifiers), std::move(head));
    if (!parts) return parts.error();
    const Retriever retriever(std::move(*parts));
    ProgressBar bar("cross-fitting fusion " + name, static_cast<std::int64_t>(held_out.size()));
    for (std::size_t d : held_out) {
      Query query{corpus.bm25_terms[d], corpus.classifier_texts[d], {}};
      const int entry = corpus.documents[d].entry;
      scores.lexical.push_back({entry, retriever.score(query)});
      if (with_vectors && corpus.vector_row[d] >= 0) {
        query.vector =
            std::span<const float>(corpus.vectors.values)
                .subspan(static_cast<std::size_t>(corpus.vector_row[d]) * dimensions, dimensions);
        scores.vectors.push_back({entry, retriever.score(query)});
      }
      bar.advance();
    }
    bar.finish();
  }
  return scores;
}

Result<RetrieverParts> build_parts(const Corpus& corpus, const std::vector<bool>& include,
                                   const ComponentChoices& choices,
                                   std::vector<std::unique_ptr<IntentClassifier>> classifiers,
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
  parts.bm25 = std::make_unique<Bm25Index>(bm25_documents, choices.bm25, corpus.function_terms);
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
  parts.classifiers = std::move(classifiers);
  parts.head = std::move(head);
  return parts;
}

}  // namespace supportd::kb
