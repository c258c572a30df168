// Language detection (language.h): the dominant script decides; Latin text counts each
// language's function words.
#include "kb/analyze/language.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include <array>
#include <map>
#include <set>

#include "kb/analyze/text_analyzer.h"

namespace supportd::kb {
namespace {

struct StopWords {
  const char* code;
  std::set<std::string_view> words;
};

// Frequent function words of each language, leaving out those that are also English words
// ("as", "do", "per", "van", "die"), so that English text never counts for another language.
const std::array<StopWords, 7>& latin_languages() {
  static const std::array<StopWords, 7> languages = {{
      {"en", {"the",  "is",   "are",  "my",  "i",  "you",  "what",  "how",   "can",  "do",
              "does", "to",   "of",   "and", "it", "have", "has",   "why",   "when", "where",
              "not",  "with", "this", "was", "be", "will", "would", "there", "get",  "for"}},
      {"fr", {"le",  "la",  "les", "est", "je",   "mon",  "ma",   "mes",     "vous",    "pas",
              "une", "des", "du",  "et",  "pour", "avec", "que",  "qui",     "comment", "pourquoi",
              "où",  "ne",  "ce",  "il",  "au",   "sur",  "dans", "commande"}},
      {"de", {"der",  "das",  "ist", "ich",   "mein", "meine",      "nicht", "und",
              "ein",  "eine", "wie", "warum", "wo",   "mit",        "für",   "auf",
              "kann", "wird", "sie", "zu",    "dem",  "bestellung", "noch"}},
      {"es", {"el",    "los",    "las", "es",   "mi",  "mis", "por",    "qué",
              "cómo",  "dónde",  "una", "para", "con", "del", "y",      "está",
              "puedo", "pedido", "se",  "lo",   "su",  "al",  "cuándo", "tengo"}},
      {"it",
       {"il", "lo", "gli", "è", "mio", "mia", "una", "con", "che", "perché", "dove", "sono", "ho",
        "della", "del", "ordine", "posso", "di"}},
      {"pt",
       {"o", "os", "é", "meu", "minha", "não", "uma", "para", "que", "como", "por", "onde", "está",
        "pedido", "posso", "da", "em", "seu"}},
      {"nl",
       {"de", "het", "mijn", "niet", "een", "en", "ik", "hoe", "waarom", "waar", "met", "voor",
        "kan", "bestelling", "nog", "wordt", "zijn"}},
  }};
  return languages;
}

// Chinese function words: particles, pronouns, question words, modal and common verbs that say
// how a question is asked, not what it is about ("今天天气怎么样？" shares only 怎么 with a
// shop's help centre). Not used to detect Chinese (its script does that).
constexpr std::string_view kChineseFunctionWords[] = {
    "的",     "了",   "吗",       "呢",   "吧",   "啊",   "呀",   "是",   "在",     "有",   "和",
    "与",     "或",   "我",       "你",   "您",   "他",   "她",   "它",   "我们",   "你们", "他们",
    "这",     "那",   "这个",     "那个", "这些", "那些", "什么", "怎么", "怎么样", "怎样", "如何",
    "为什么", "为何", "哪",       "哪里", "哪儿", "哪些", "哪个", "多少", "几",     "谁",   "能",
    "能不能", "可以", "可不可以", "会",   "要",   "想",   "请",   "请问", "一下",   "还",   "也",
    "都",     "就",   "不",       "没",   "没有", "一个", "些",   "把",   "被",     "给",   "对",
    "从",     "到",   "让",       "得",   "地",   "着",   "过",   "很",
};

struct ScriptCode {
  UScriptCode script;
  const char* language;
};

// Scripts mostly used by one language; others report "und" with their script.
constexpr ScriptCode kScriptLanguages[] = {
    {USCRIPT_HANGUL, "ko"},     {USCRIPT_CYRILLIC, "ru"}, {USCRIPT_ARABIC, "ar"},
    {USCRIPT_GREEK, "el"},      {USCRIPT_HEBREW, "he"},   {USCRIPT_THAI, "th"},
    {USCRIPT_DEVANAGARI, "hi"}, {USCRIPT_GEORGIAN, "ka"}, {USCRIPT_ARMENIAN, "hy"},
};

}  // namespace

std::vector<std::string> function_words() {
  std::vector<std::string> words;
  for (const StopWords& language : latin_languages()) {
    for (std::string_view word : language.words)
      words.emplace_back(word);
  }
  return words;
}

std::vector<std::string> chinese_function_words() {
  return {std::begin(kChineseFunctionWords), std::end(kChineseFunctionWords)};
}

LanguageGuess detect_language(std::string_view text) {
  std::map<UScriptCode, int> letters;
  bool kana = false;
  for (int32_t i = 0, size = static_cast<int32_t>(text.size()); i < size;) {
    UChar32 c = 0;
    U8_NEXT(text.data(), i, size, c);
    if (c < 0 || !u_isalpha(c)) continue;
    UErrorCode status = U_ZERO_ERROR;
    UScriptCode script = uscript_getScript(c, &status);
    if (U_FAILURE(status) || script == USCRIPT_COMMON || script == USCRIPT_INHERITED) continue;
    if (script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA) {
      kana = true;
      script = USCRIPT_HAN;  // Japanese mixes kanji and kana: count them together
    }
    ++letters[script];
  }
  if (letters.empty()) return {"und", "Zyyy", false};
  UScriptCode dominant = letters.begin()->first;
  for (const auto& [script, count] : letters) {
    if (count > letters[dominant]) dominant = script;
  }
  const std::string script_code = uscript_getShortName(dominant);
  if (dominant == USCRIPT_HAN) return {kana ? "ja" : "zh", kana ? "Jpan" : "Hani", true};
  for (const ScriptCode& known : kScriptLanguages) {
    if (known.script == dominant) return {known.language, script_code, true};
  }
  if (dominant != USCRIPT_LATIN) return {"und", script_code, false};

  // Latin: count function words per language on case-folded words.
  const Result<TextAnalyzer> analyzer = TextAnalyzer::create({CjkSegmentation::kBigrams, false});
  std::map<std::string, int> hits;
  if (analyzer.ok()) {
    for (const std::string& word : analyzer->terms(text)) {
      for (const StopWords& language : latin_languages()) {
        if (language.words.count(word) != 0) ++hits[language.code];
      }
    }
  }
  std::string best = "en";
  for (const auto& [code, count] : hits) {
    if (count > hits[best]) best = code;
  }
  return {best, script_code, !hits.empty()};
}

}  // namespace supportd::kb
