// Turns text into index terms: NFKC normalization with Unicode case folding, ICU word
// segmentation, and for Chinese and Japanese (written without spaces) character bigrams, ICU's
// dictionary words, or both. Latin-script words get a light English suffix stemmer.
// Thread-safe: const methods may be called from any thread (segmenters are per thread).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::kb {

enum class CjkSegmentation {
  kBigrams,          // overlapping character pairs of every Han/kana run (a lone character stays)
  kIcuWords,         // ICU's dictionary-based word break
  kWordsAndBigrams,  // both, as separate terms: the default, the best of the three on the
                     // Chinese store help centre (bench/kb-chinese, docs/performance.md)
};

const char* cjk_segmentation_name(CjkSegmentation mode);
// Parses "bigrams", "icu-words" or "words+bigrams".
Result<CjkSegmentation> parse_cjk_segmentation(std::string_view name);

struct AnalyzerOptions {
  CjkSegmentation cjk = CjkSegmentation::kWordsAndBigrams;
  bool stem = true;  // light English suffix stemming of Latin-script words
};

class TextAnalyzer {
 public:
  // Fails only when ICU's data is missing.
  static Result<TextAnalyzer> create(AnalyzerOptions options);

  const AnalyzerOptions& options() const { return options_; }

  // The terms of `text` in order. Invalid UTF-8 is replaced, punctuation and spaces dropped.
  std::vector<std::string> terms(std::string_view text) const;

  // NFKC + case folding of the whole text (no segmentation); invalid UTF-8 replaced.
  static std::string fold(std::string_view text);

 private:
  explicit TextAnalyzer(AnalyzerOptions options) : options_(options) {}

  AnalyzerOptions options_;
};

// The light English stemmer used on Latin-script words (exposed for tests): strips plural and
// possessive endings and common verb suffixes ("cards" -> "card", "charged" -> "charg").
std::string stem_english(std::string word);

}  // namespace supportd::kb
