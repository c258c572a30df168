// The text analyzer (folding, punctuation, stemming, Chinese bigrams and dictionary words,
// invalid UTF-8) and language detection by script and function words.
#include "kb/analyze/text_analyzer.h"

#include <gtest/gtest.h>

#include "kb/analyze/language.h"

namespace supportd::kb {
namespace {

using Terms = std::vector<std::string>;

TextAnalyzer analyzer(CjkSegmentation cjk = CjkSegmentation::kBigrams, bool stem = true) {
  auto created = TextAnalyzer::create({cjk, stem});
  EXPECT_TRUE(created.ok());
  return *created;
}

TEST(TextAnalyzer, FoldsCaseAndCompatibilityForms) {
  const TextAnalyzer plain = analyzer(CjkSegmentation::kBigrams, false);
  // Full-width letters and digits, ligatures and German sharp s all fold to plain forms.
  EXPECT_EQ(plain.terms("ＡＢＣ １２３"), (Terms{"abc", "123"}));
  EXPECT_EQ(plain.terms("Straße STRASSE"), (Terms{"strasse", "strasse"}));
  EXPECT_EQ(plain.terms("ﬁnance"), (Terms{"finance"}));
  EXPECT_EQ(TextAnalyzer::fold("ÉCOLE"), "école");
}

TEST(TextAnalyzer, DropsPunctuationAndSpaces) {
  const TextAnalyzer plain = analyzer(CjkSegmentation::kBigrams, false);
  EXPECT_EQ(plain.terms("  Where's my card?!  "), (Terms{"where's", "my", "card"}));
  EXPECT_TRUE(plain.terms("?!... ---").empty());
  EXPECT_TRUE(plain.terms("").empty());
}

TEST(TextAnalyzer, StemsEnglishEndingsConsistently) {
  EXPECT_EQ(stem_english("cards"), "card");
  EXPECT_EQ(stem_english("charged"), stem_english("charges"));
  EXPECT_EQ(stem_english("charging"), stem_english("charge"));
  EXPECT_EQ(stem_english("topped"), "top");
  EXPECT_EQ(stem_english("verified"), stem_english("verify"));
  EXPECT_EQ(stem_english("card's"), "card");
  EXPECT_EQ(stem_english("boxes"), "box");
  EXPECT_EQ(stem_english("status"), "status");  // not a plural
  EXPECT_EQ(stem_english("pin"), "pin");        // short words stay
  EXPECT_EQ(stem_english("café"), "café");      // only plain a-z words are stemmed
}

TEST(TextAnalyzer, SplitsChineseIntoBigrams) {
  const TextAnalyzer bigrams = analyzer(CjkSegmentation::kBigrams);
  EXPECT_EQ(bigrams.terms("退货政策"), (Terms{"退货", "货政", "政策"}));
  // A lone character stays a term; Latin words around it are separate terms.
  EXPECT_EQ(analyzer(CjkSegmentation::kBigrams, false).terms("iPhone 退"), (Terms{"iphone", "退"}));
  // Punctuation ends a run: no bigram spans "，".
  EXPECT_EQ(bigrams.terms("退货，运费"), (Terms{"退货", "运费"}));
}

TEST(TextAnalyzer, IcuWordsUseTheDictionary) {
  const TextAnalyzer words = analyzer(CjkSegmentation::kIcuWords);
  const Terms terms = words.terms("我想退货");
  // ICU's dictionary finds words of one or more characters; no overlapping pairs.
  EXPECT_GE(terms.size(), 2u);
  EXPECT_LE(terms.size(), 4u);
  std::string joined;
  for (const auto& term : terms)
    joined += term;
  EXPECT_EQ(joined, "我想退货");
  const TextAnalyzer both = analyzer(CjkSegmentation::kWordsAndBigrams);
  EXPECT_EQ(both.terms("我想退货").size(), terms.size() + 3);
}

TEST(TextAnalyzer, ReplacesInvalidUtf8InsteadOfFailing) {
  const TextAnalyzer plain = analyzer(CjkSegmentation::kBigrams, false);
  const Terms terms = plain.terms("card\xFF\xFEpin");
  ASSERT_FALSE(terms.empty());
  EXPECT_EQ(terms.front(), "card");
}

TEST(TextAnalyzer, ParsesSegmentationNames) {
  EXPECT_EQ(*parse_cjk_segmentation("icu-words"), CjkSegmentation::kIcuWords);
  EXPECT_EQ(*parse_cjk_segmentation("bigrams"), CjkSegmentation::kBigrams);
  EXPECT_FALSE(parse_cjk_segmentation("jieba").ok());
}

TEST(Language, DetectsByScriptAndFunctionWords) {
  EXPECT_EQ(detect_language("Where is my parcel?").code, "en");
  EXPECT_EQ(detect_language("Où est ma commande ? Je ne la trouve pas").code, "fr");
  EXPECT_EQ(detect_language("Wo ist meine Bestellung? Ich kann sie nicht finden").code, "de");
  EXPECT_EQ(detect_language("¿Dónde está mi pedido? No lo tengo").code, "es");
  EXPECT_EQ(detect_language("我的包裹在哪里？").code, "zh");
  EXPECT_EQ(detect_language("注文した商品はいつ届きますか").code, "ja");
  EXPECT_EQ(detect_language("주문한 상품은 언제 도착하나요").code, "ko");
  EXPECT_EQ(detect_language("Где мой заказ?").code, "ru");
  EXPECT_EQ(detect_language("123 ?!").code, "und");
  // English questions full of words other languages also use stay English.
  EXPECT_EQ(detect_language("Do I have to pay as much per transfer in the EU?").code, "en");
  // Latin text without telling words is English, but not certainly.
  const LanguageGuess guess = detect_language("card payment declined");
  EXPECT_EQ(guess.code, "en");
  EXPECT_FALSE(guess.certain);
}

}  // namespace
}  // namespace supportd::kb
