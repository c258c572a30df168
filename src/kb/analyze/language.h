// Language detection, small and explainable: the dominant Unicode script of the letters decides
// (Han -> zh, or ja when kana appear; Hangul -> ko; Cyrillic -> ru; ...); Latin text is told
// apart by counting the most common function words of English, French, German, Spanish,
// Italian, Portuguese and Dutch, and is English unless another language's words outnumber
// English ones. Used to route queries: the sentence encoder is English-only.
// Thread-safe (pure functions).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace supportd::kb {

struct LanguageGuess {
  std::string code;      // ISO 639-1 ("en", "zh", ...), or "und" when there are no letters
  std::string script;    // ISO 15924 of the dominant script ("Latn", "Hani", ...), or "Zyyy"
  bool certain = false;  // false when Latin text had no telling function words
};

LanguageGuess detect_language(std::string_view text);

// The function words the detector counts, for every language it tells apart (case-folded):
// "the", "is", "how", "le", "der", ... BM25 gives them less weight.
std::vector<std::string> function_words();

// Chinese function words ("的", "吗", "怎么", "可以", ...): particles, pronouns, question words.
// The out-of-scope rule does not count them as words a question shares with the knowledge base.
// BM25 does not weigh them down (measured on the Chinese store questions, bench/kb-chinese: it
// cost one question of 80 at top-1).
std::vector<std::string> chinese_function_words();

}  // namespace supportd::kb
