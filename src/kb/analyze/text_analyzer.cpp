// The text analyzer (text_analyzer.h): ICU NFKC_Casefold and word break (one iterator per thread),
// Han/kana runs as dictionary words and bigrams, a light English suffix stemmer.
#include "kb/analyze/text_analyzer.h"

#include <unicode/brkiter.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#include <unicode/uscript.h>

#include <algorithm>

namespace supportd::kb {
namespace {

const icu::Normalizer2* nfkc_casefold() {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* normalizer = icu::Normalizer2::getNFKCCasefoldInstance(status);
  return U_SUCCESS(status) ? normalizer : nullptr;
}

// One word-break iterator per thread: ICU iterators are not thread-safe, creating one costs
// tens of microseconds, and the rules do not depend on the analyzer.
icu::BreakIterator* word_breaker() {
  thread_local std::unique_ptr<icu::BreakIterator> breaker = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::BreakIterator> created(
        icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status)) created.reset();
    return created;
  }();
  return breaker.get();
}

bool is_cjk(UChar32 c) {
  UErrorCode status = U_ZERO_ERROR;
  const UScriptCode script = uscript_getScript(c, &status);
  return script == USCRIPT_HAN || script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA;
}

std::string to_utf8(const icu::UnicodeString& text) {
  std::string out;
  text.toUTF8String(out);
  return out;
}

bool ends_with(const std::string& word, std::string_view suffix) {
  return word.size() >= suffix.size() &&
         word.compare(word.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_vowel(char c) {
  return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

bool has_vowel(std::string_view stem) {
  return std::any_of(stem.begin(), stem.end(), is_vowel);
}

// Appends the terms of a run of Han/kana text according to `mode`.
void add_cjk_run(const std::vector<icu::UnicodeString>& words, CjkSegmentation mode,
                 std::vector<std::string>& terms) {
  if (words.empty()) return;
  if (mode != CjkSegmentation::kBigrams) {
    for (const auto& word : words)
      terms.push_back(to_utf8(word));
  }
  if (mode == CjkSegmentation::kIcuWords) return;
  icu::UnicodeString run;
  for (const auto& word : words)
    run.append(word);
  std::vector<icu::UnicodeString> chars;
  for (int32_t i = 0; i < run.length();) {
    const int32_t next = run.moveIndex32(i, 1);
    chars.push_back(run.tempSubStringBetween(i, next));
    i = next;
  }
  if (chars.size() == 1) {
    if (mode == CjkSegmentation::kBigrams) terms.push_back(to_utf8(chars[0]));
    return;
  }
  for (std::size_t i = 0; i + 1 < chars.size(); ++i) {
    icu::UnicodeString pair = chars[i];
    pair.append(chars[i + 1]);
    terms.push_back(to_utf8(pair));
  }
}

}  // namespace

const char* cjk_segmentation_name(CjkSegmentation mode) {
  switch (mode) {
    case CjkSegmentation::kBigrams: return "bigrams";
    case CjkSegmentation::kIcuWords: return "icu-words";
    case CjkSegmentation::kWordsAndBigrams: return "words+bigrams";
  }
  return "bigrams";
}

Result<CjkSegmentation> parse_cjk_segmentation(std::string_view name) {
  for (auto mode :
       {CjkSegmentation::kBigrams, CjkSegmentation::kIcuWords, CjkSegmentation::kWordsAndBigrams}) {
    if (name == cjk_segmentation_name(mode)) return mode;
  }
  return Error::invalid("unknown CJK segmentation '" + std::string(name) +
                        "' (expected bigrams, icu-words or words+bigrams)");
}

Result<TextAnalyzer> TextAnalyzer::create(AnalyzerOptions options) {
  if (nfkc_casefold() == nullptr || word_breaker() == nullptr) {
    return Error::make(ErrorCode::kUnavailable,
                       "ICU data for normalization or word break is missing (libicu72)");
  }
  return TextAnalyzer(options);
}

std::string TextAnalyzer::fold(std::string_view text) {
  const icu::UnicodeString input = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString folded = nfkc_casefold()->normalize(input, status);
  return U_SUCCESS(status) ? to_utf8(folded) : to_utf8(input);
}

std::vector<std::string> TextAnalyzer::terms(std::string_view text) const {
  const icu::UnicodeString input = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeString folded = nfkc_casefold()->normalize(input, status);
  if (U_FAILURE(status)) folded = input;

  std::vector<std::string> terms;
  std::vector<icu::UnicodeString> cjk_run;
  icu::BreakIterator* breaker = word_breaker();
  breaker->setText(folded);
  for (int32_t start = breaker->first(), end = breaker->next(); end != icu::BreakIterator::DONE;
       start = end, end = breaker->next()) {
    if (breaker->getRuleStatus() < UBRK_WORD_NONE_LIMIT) {  // spaces and punctuation
      add_cjk_run(cjk_run, options_.cjk, terms);
      cjk_run.clear();
      continue;
    }
    icu::UnicodeString word = folded.tempSubStringBetween(start, end);
    if (is_cjk(word.char32At(0))) {
      cjk_run.push_back(word);
      continue;
    }
    add_cjk_run(cjk_run, options_.cjk, terms);
    cjk_run.clear();
    std::string term = to_utf8(word);
    if (options_.stem) term = stem_english(std::move(term));
    terms.push_back(std::move(term));
  }
  add_cjk_run(cjk_run, options_.cjk, terms);
  // The iterator keeps a pointer to `folded`; detach it before the string goes away.
  breaker->setText(icu::UnicodeString());
  return terms;
}

std::string stem_english(std::string word) {
  // Possessives first ("card's", "cards'"); NFKC leaves the typographic apostrophe as U+2019.
  for (std::string_view suffix : {"'s", "\xE2\x80\x99s", "'", "\xE2\x80\x99"}) {
    if (ends_with(word, suffix) && word.size() > suffix.size()) {
      word.resize(word.size() - suffix.size());
      break;
    }
  }
  if (word.size() <= 3 ||
      !std::all_of(word.begin(), word.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
    return word;
  }
  // Plurals.
  if (ends_with(word, "sses")) {
    word.resize(word.size() - 2);
  } else if (ends_with(word, "ies") && word.size() > 4) {
    word.replace(word.size() - 3, 3, "y");
  } else if (ends_with(word, "ches") || ends_with(word, "shes") || ends_with(word, "xes") ||
             ends_with(word, "zes")) {
    word.resize(word.size() - 2);
  } else if (ends_with(word, "s") && !ends_with(word, "ss") && !ends_with(word, "us") &&
             !ends_with(word, "is")) {
    word.resize(word.size() - 1);
  }
  // Verb endings, keeping a stem of at least three letters with a vowel.
  bool stripped = false;
  for (std::string_view suffix : {"ing", "ed"}) {
    if (ends_with(word, suffix) && word.size() >= suffix.size() + 3 &&
        has_vowel(std::string_view(word).substr(0, word.size() - suffix.size()))) {
      word.resize(word.size() - suffix.size());
      stripped = true;
      break;
    }
  }
  if (stripped && word.size() >= 2) {
    const char last = word.back();
    if (last == word[word.size() - 2] && !is_vowel(last) && last != 'l' && last != 's' &&
        last != 'z') {
      word.pop_back();  // "topped" -> "topp" -> "top"
    }
  }
  if (word.size() > 3 && word.back() == 'e') word.pop_back();
  if (word.size() > 2 && word.back() == 'y' && !is_vowel(word[word.size() - 2])) {
    word.back() = 'i';
  }
  return word;
}

}  // namespace supportd::kb
