// The intent classifier: fastText supervised training on the knowledge base's questions
// (labels are entry indexes), trained at import time and saved beside the entries.
// Thread-safe: predict() may run on many threads at once; train/load/save are not concurrent.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace supportd::kb {

struct ClassifierParams {
  int epochs = 50;
  int word_ngrams = 2;     // 1: words only
  int min_char_ngram = 0;  // 0: no character n-grams
  int max_char_ngram = 0;
  int dimensions = 50;
  double learning_rate = 0.5;
  int buckets = 100000;  // hash buckets for n-grams (model size grows with them)
  int threads = 1;       // 1 keeps training deterministic for a seed
  int seed = 1;
};

class IntentClassifier {
 public:
  ~IntentClassifier();

  // Trains on `texts` (space-separated terms) labelled with classes in [0, class_count).
  // The training file is written to `work_dir` and removed. `progress` gets 0..1.
  static Result<std::unique_ptr<IntentClassifier>> train(
      const std::vector<std::string>& texts, const std::vector<int>& classes, int class_count,
      const ClassifierParams& params, const std::string& work_dir,
      const std::function<void(double)>& progress = {});

  // Loads a model saved by save(); kCorrupt naming the file when its layout is damaged
  // (check_fasttext_file) or it names classes outside [0, class_count). `verified`: the caller
  // already matched the file against the checksum recorded when save() wrote it, so the layout
  // walk (a whole extra read) is skipped.
  static Result<std::unique_ptr<IntentClassifier>> load(const std::string& path, int class_count,
                                                        bool verified = false);

  Status save(const std::string& path) const;

  // A probability for every class (they sum to 1 over the classes seen in training).
  std::vector<float> predict(const std::string& text) const;

  int class_count() const { return class_count_; }

 private:
  struct Model;
  IntentClassifier(std::unique_ptr<Model> model, int class_count);
  static Result<std::unique_ptr<IntentClassifier>> wrap(std::unique_ptr<Model> model,
                                                        int class_count, const std::string& where);

  std::unique_ptr<Model> model_;
  int class_count_;
  std::vector<int> class_of_label_;  // fastText label index -> class
};

// Space-separated terms as fastText reads them (no newlines or tabs inside).
std::string join_terms(const std::vector<std::string>& terms);

}  // namespace supportd::kb
