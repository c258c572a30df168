// The text normalizer the rules match on: case, width and compatibility folding with offsets back
// to the original, streaming appends equal to the whole text, word-boundary scripts.
#include "filter/text_normalizer.h"

#include <string>

#include <gtest/gtest.h>

#include "filter/word_boundary.h"

namespace supportd::filter {
namespace {

TEST(TextNormalizerTest, FoldsCaseWidthAndCompatibilityForms) {
  EXPECT_EQ(normalize_text("Hello WORLD").text(), "hello world");
  EXPECT_EQ(normalize_text("ＢＯＭＢ ｂｏｍｂ").text(), "bomb bomb");
  EXPECT_EQ(normalize_text("Straße").text(), "strasse");
  EXPECT_EQ(normalize_text("ﬁle").text(), "file");
  EXPECT_EQ(normalize_text("１３８").text(), "138");
  EXPECT_EQ(normalize_text("炸弹").text(), "炸弹");
  EXPECT_EQ(normalize_text("b\u200Bo\u00ADmb").text(), "bomb");  // ignorables vanish
  EXPECT_EQ(normalize_text("e\u0301").text(), "\u00e9");         // composed
}

TEST(TextNormalizerTest, MapsOffsetsBackToTheOriginal) {
  const std::string original = "ab ＢＯＭＢ 炸弹";  // full-width letters are 3 bytes each
  const NormalizedText text = normalize_text(original);
  ASSERT_EQ(text.text(), "ab bomb 炸弹");
  EXPECT_EQ(text.original_begin(3), 3u);   // 'b' of bomb <- 'Ｂ'
  EXPECT_EQ(text.original_end(7), 15u);    // after 'm','b' <- after 'Ｂ'
  EXPECT_EQ(text.original_begin(8), 16u);  // 炸
  EXPECT_EQ(text.original_end(14), original.size());
  EXPECT_EQ(original.substr(3, 12), "ＢＯＭＢ");
}

TEST(TextNormalizerTest, ExpandedCharactersMapAndCutAsAWhole) {
  const NormalizedText text = normalize_text("aß!");  // "ass!"
  ASSERT_EQ(text.text(), "ass!");
  EXPECT_EQ(text.original_begin(2), 1u);  // the second 's' still starts at 'ß'
  EXPECT_EQ(text.original_end(2), 3u);    // the first 's' ends where 'ß' ends
  EXPECT_EQ(text.cut_point(2), 1u);       // never cut inside 'ß'
  EXPECT_EQ(text.cut_point(3), 3u);
}

TEST(TextNormalizerTest, StreamingAppendEqualsWholeText) {
  const std::string original = "Caf\u0065\u0301 ＡＢＣ Straße 炸弹 e\u0301";
  const std::string whole = normalize_text(original).text();
  for (std::size_t split = 0; split <= original.size(); ++split) {
    // Splits land anywhere a UTF-8 boundary allows; only whole characters are appended.
    if (split < original.size() && (static_cast<unsigned char>(original[split]) & 0xC0) == 0x80)
      continue;
    NormalizedText text;
    text.append(original.substr(0, split), false);
    text.append(original.substr(split), true);
    EXPECT_EQ(text.text(), whole) << "split at " << split;
    EXPECT_EQ(text.original_end(), original.size());
  }
}

TEST(TextNormalizerTest, WaitsForACombiningMarkInTheNextPiece) {
  NormalizedText text;
  text.append("cafe", false);
  EXPECT_EQ(text.text(), "caf");  // the 'e' may still take an accent
  text.append("\u0301 ", false);  // nothing can combine with a space: no need to wait
  EXPECT_EQ(text.text(), "caf\u00e9 ");
  text.append("x", false);
  EXPECT_EQ(text.text(), "caf\u00e9 ");
  text.append("", true);
  EXPECT_EQ(text.text(), "caf\u00e9 x");
}

TEST(TextNormalizerTest, DiscardKeepsOffsetsAbsolute) {
  NormalizedText text;
  text.append("ＡＢＣdef", true);
  text.discard_before(2);
  EXPECT_EQ(text.base(), 2u);
  EXPECT_EQ(text.text(), "cdef");
  EXPECT_EQ(text.original_begin(2), 6u);
  EXPECT_EQ(text.original_begin(4), 10u);
  EXPECT_EQ(text.original_cut(6), 12u);
}

TEST(WordBoundaryTest, ScriptsWithoutSpacesNeverNeedBoundaries) {
  EXPECT_TRUE(word_character_at("abc", 0));
  EXPECT_TRUE(word_character_at("é", 0));
  EXPECT_TRUE(word_character_at("д", 0));
  EXPECT_TRUE(word_character_at("7", 0));
  EXPECT_FALSE(word_character_at(" ", 0));
  EXPECT_FALSE(word_character_at("炸", 0));
  EXPECT_FALSE(word_character_at("カ", 0));
  EXPECT_FALSE(word_character_at("ไ", 0));
  EXPECT_FALSE(word_character_at("abc", 3));  // the end
  EXPECT_TRUE(word_character_before("我a", 4));
  EXPECT_FALSE(word_character_before("a我", 4));
  EXPECT_FALSE(word_character_before("abc", 0));  // the start
}

}  // namespace
}  // namespace supportd::filter
