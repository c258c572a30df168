// Training the components over a subset of the corpus: the dev retriever at import is built
// over the training part, the final one over everything. Internal to kb/.
// Thread-safe (no shared state); training uses the threads its parameters ask for.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kb/corpus.h"
#include "kb/retriever.h"

namespace supportd::kb {

struct ComponentChoices {
  Bm25Params bm25;
  bool classifier = false;
  ClassifierParams classifier_params;
  bool head = false;
  HeadParams head_params;
  int dense_exact_limit = DenseIndex::kDefaultExactLimit;
};

// Trains fastText on the question documents in `include` (a progress bar titled `label`).
Result<std::unique_ptr<IntentClassifier>> train_classifier(const Corpus& corpus,
                                                           const std::vector<bool>& include,
                                                           const ClassifierParams& params,
                                                           const std::string& work_dir,
                                                           const std::string& label);

// Trains the softmax head on the question documents in `include` that have vectors.
Result<std::unique_ptr<SoftmaxHead>> train_head(const Corpus& corpus,
                                                const std::vector<bool>& include,
                                                const HeadParams& params, const std::string& label);

// Builds BM25 and the dense index over the documents in `include`, with the given trained
// classifier and head (either may be null).
Result<RetrieverParts> build_parts(const Corpus& corpus, const std::vector<bool>& include,
                                   const ComponentChoices& choices,
                                   std::unique_ptr<IntentClassifier> classifier,
                                   std::unique_ptr<SoftmaxHead> head,
                                   const std::string& graph_path = {});

// Whether labelled questions are numerous enough to train a classifier on (at least two
// entries with questions, two questions per entry on average, at most 2000 entries); when not,
// `why` says so.
bool classifier_worthwhile(const Corpus& corpus, const std::vector<bool>& include,
                           std::string& why);

}  // namespace supportd::kb
