// `supportd kb import`: reads the files, builds a new generation of the knowledge base and
// publishes it. Every choice that could be tuned (fastText hyperparameters, the softmax head's
// regularization, fusion weights, the confidence threshold, the semantic-cache threshold) is
// made on questions held out from the imported questions themselves, never on a test set.
// Not thread-safe per directory: one import at a time into a DIR (readers are unaffected).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "kb/analyze/embedder.h"
#include "kb/files/kb_files.h"
#include "kb/import/sources.h"

namespace supportd::kb {

struct ImportOptions {
  SourceOptions source;
  CjkSegmentation cjk = CjkSegmentation::kWordsAndBigrams;
  std::shared_ptr<const Embedder> embedder;  // null: no vectors (lexical components only)
  // The imported questions are dealt into this many folds (at least 2): the components'
  // settings are chosen on the first, the fusion weights and the confidence calibration on all
  // of them, each fold scored by components trained on the others.
  int folds = 5;
  std::uint64_t seed = 1;  // folds, fastText and the head
  // The policy: answer when at least this share of such answers are right (the threshold's
  // precision on the held-out questions), (0, 1].
  double target_precision = 0.90;
  // The out-of-scope gate (search/scope.h) lets this share of the held-out questions answered
  // right through.
  double scope_pass_rate = 0.97;
  double cache_wrong_rate = 0.01;                 // the semantic cache's wrong-hit ceiling on dev
  std::vector<ClassifierParams> classifier_grid;  // empty: default_classifier_grid()
  std::vector<HeadParams> head_grid;              // empty: default_head_grid()
  int exact_limit = 50000;  // up to this many vectors, exact nearest neighbours; above, HNSW
};

struct ImportReport {
  Manifest manifest;
  std::string generation;  // directory written
};

// Imports `files` into `dir` (created if needed) as a new generation and publishes it.
// Fails, leaving the live generation untouched, on any malformed file (naming file and line)
// and on options out of range (kInvalidArgument naming the flag).
Result<ImportReport> import_knowledge_base(const std::string& dir,
                                           const std::vector<std::string>& files,
                                           const ImportOptions& options);

std::vector<ClassifierParams> default_classifier_grid();
std::vector<HeadParams> default_head_grid();

}  // namespace supportd::kb
