// UTF-8: validation, replacement of maximal ill-formed subparts, and the streaming holder that
// keeps split characters until complete and round-trips every byte split of valid text.
#include "core/utf8.h"

#include <gtest/gtest.h>

namespace supportd {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

TEST(Utf8, ValidatesWellFormedText) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("hello"));
  EXPECT_TRUE(is_valid_utf8("caf\xC3\xA9 \xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\x98\x80"));
}

TEST(Utf8, RejectsIllFormedText) {
  EXPECT_FALSE(is_valid_utf8("\xC3"));              // truncated
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xFF"));
  EXPECT_EQ(first_invalid_utf8("ab\xFF"), 2u);
}

TEST(Utf8, SanitizeReplacesMaximalSubparts) {
  EXPECT_EQ(sanitize_utf8("a\xFF"
                          "b"),
            "a" + kReplacement + "b");
  // A truncated 3-byte sequence followed by ASCII is one replacement character.
  EXPECT_EQ(sanitize_utf8("\xE4\xBD"
                          "x"),
            kReplacement + "x");
  EXPECT_EQ(sanitize_utf8("\xE4\xBD"), kReplacement);
}

TEST(Utf8Stream, HoldsSplitCharactersUntilComplete) {
  Utf8Stream stream;
  EXPECT_EQ(stream.push("he\xE4"), "he");
  EXPECT_EQ(stream.pending(), 1u);
  EXPECT_EQ(stream.push("\xBD"), "");
  EXPECT_EQ(stream.push("\xA0!"), "\xE4\xBD\xA0!");
  EXPECT_EQ(stream.finish(), "");
}

TEST(Utf8Stream, ReplacesInvalidBytesAndDanglingTail) {
  Utf8Stream stream;
  EXPECT_EQ(stream.push("a\x80"
                        "b"),
            "a" + kReplacement + "b");
  EXPECT_EQ(stream.push("\xF0\x9F"), "");
  EXPECT_EQ(stream.finish(), kReplacement);
}

TEST(Utf8Stream, EveryByteSplitOfValidTextRoundTrips) {
  const std::string text = "x\xC3\xA9\xE4\xBD\xA0\xF0\x9F\x98\x80y";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    Utf8Stream stream;
    std::string out = stream.push(text.substr(0, cut));
    out += stream.push(text.substr(cut));
    out += stream.finish();
    EXPECT_EQ(out, text) << "cut at " << cut;
  }
}

}  // namespace
}  // namespace supportd
