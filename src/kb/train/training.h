// Training the components over a subset of the corpus: the dev retriever at import is built
// over the training part, the final one over everything. Internal to kb/.
// Thread-safe (no shared state); training uses the threads its parameters ask for.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kb/search/retriever.h"
#include "kb/train/corpus.h"
#include "kb/train/tuning.h"

namespace supportd::kb {

struct ComponentChoices {
  Bm25Params bm25;
  std::vector<ClassifierParams> classifiers;  // fastText models averaged; empty: none
  bool head = false;
  HeadParams head_params;
  int dense_exact_limit = DenseIndex::kDefaultExactLimit;
};

// Trains fastText on the documents in `include` (a progress bar titled `label`). Every document
// is an example of its entry: its questions, and its title and answer too, so an article that
// nobody wrote questions for is a class the classifier can name. (Trained on questions alone,
// the demo's classifiers never named a help-centre section, and the fusion weights, tuned on
// held-out questions, leaned on them: customers asking about an article got a FAQ entry.)
Result<std::unique_ptr<IntentClassifier>> train_classifier(const Corpus& corpus,
                                                           const std::vector<bool>& include,
                                                           const ClassifierParams& params,
                                                           const std::string& work_dir,
                                                           const std::string& label);

// Trains the softmax head on the documents in `include` that have vectors (every kind, as
// train_classifier).
Result<std::unique_ptr<SoftmaxHead>> train_head(const Corpus& corpus,
                                                const std::vector<bool>& include,
                                                const HeadParams& params, const std::string& label);

// Builds BM25 and the dense index over the documents in `include`, with the given trained
// classifiers (may be none) and head (may be null).
Result<RetrieverParts> build_parts(const Corpus& corpus, const std::vector<bool>& include,
                                   const ComponentChoices& choices,
                                   std::vector<std::unique_ptr<IntentClassifier>> classifiers,
                                   std::unique_ptr<SoftmaxHead> head,
                                   const std::string& graph_path = {});

// The fastText models chosen on the dev split: each of `grid` alone, or all of them averaged,
// whichever finds the most dev questions' entries first; with those models (trained on
// `train`, to score the dev split with).
struct ClassifierChoice {
  std::vector<ClassifierParams> params;
  std::vector<std::unique_ptr<IntentClassifier>> models;
  double top1 = 0;
};
Result<ClassifierChoice> choose_classifiers(const Corpus& corpus, const std::vector<bool>& train,
                                            const std::vector<std::size_t>& dev,
                                            const std::vector<ClassifierParams>& grid,
                                            const std::string& work_dir);

// The softmax head of `grid` with the best top-1 on the dev split, trained on `train`.
struct HeadChoice {
  HeadParams params;
  std::unique_ptr<SoftmaxHead> head;
  double top1 = 0;
};
Result<HeadChoice> choose_head(const Corpus& corpus, const std::vector<bool>& train,
                               const std::vector<std::size_t>& dev,
                               const std::vector<HeadParams>& grid);

// Function-word weights tried on the dev split, and the one used when there is none.
inline constexpr float kFunctionWordWeights[] = {1.0f, 0.3f, 0.1f};
inline constexpr float kDefaultFunctionWordWeight = 0.3f;

// The function-word weight whose BM25 nearest document finds the most dev questions' entries
// (the earlier in kFunctionWordWeights on ties), with BM25 built over `train`.
float choose_function_word_weight(const Corpus& corpus, const std::vector<bool>& train,
                                  const std::vector<std::size_t>& dev, Bm25Params params);

// Cross-fitting: the questions of every fold (choose_folds) scored by the components of
// `choices` trained on the documents outside that fold, so the fusion weights and the
// calibration are chosen on every held-out question rather than on one fold's. Fold 0's trained
// classifiers and head are given (made while choosing them; either may be missing); the other
// folds' are trained here. `lexical` has every held-out question without its vector, `vectors`
// those with one (empty without vectors).
struct FoldScores {
  std::vector<DevQuestion> lexical;
  std::vector<DevQuestion> vectors;
};
Result<FoldScores> score_folds(const Corpus& corpus, const std::vector<int>& fold_of, int folds,
                               const ComponentChoices& choices,
                               std::vector<std::unique_ptr<IntentClassifier>> first_classifiers,
                               std::unique_ptr<SoftmaxHead> first_head,
                               const std::string& work_dir);

// Whether labelled questions are numerous enough to train a classifier on (at least two
// entries with questions, two questions per entry on average, at most 2000 entries); when not,
// `why` says so.
bool classifier_worthwhile(const Corpus& corpus, const std::vector<bool>& include,
                           std::string& why);

}  // namespace supportd::kb
