// The streaming output filter: a refused word, Chinese term or regex is caught at every split of
// the answer into pieces, masks likewise; only what could still match is held back; nothing after
// a stop; input-only rules do not apply; each flag reported once.
#include "filter/output_filter.h"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/utf8.h"
#include "rule_set_fixture.h"

namespace supportd::filter {
namespace {

constexpr std::string_view kRules =
    "refuse violence word: bomb\n"
    "refuse violence word: 炸弹\n"
    "mask profanity word: ass\n"
    "mask profanity word: damn\n"
    "mask profanity word: 他妈的\n"
    "flag competitor word: acme corp\n"
    "refuse fraud regex: wire\\s{0,3}transfer\\s{0,3}fee\n"
    "mask account regex: acct-\\d{6,10}\n"
    "refuse refund input word: refund\n";

struct Streamed {
  std::string text;
  bool stopped = false;
  std::optional<RuleHit> stopped_by;
};

// Feeds `pieces` and finish(); checks every returned piece is valid UTF-8.
Streamed stream(const std::shared_ptr<const RuleSet>& rules,
                const std::vector<std::string_view>& pieces) {
  OutputFilter filter(rules);
  Streamed out;
  for (std::string_view piece : pieces) {
    const std::string safe = filter.push(piece);
    EXPECT_TRUE(is_valid_utf8(safe));
    out.text += safe;
  }
  const std::string rest = filter.finish();
  EXPECT_TRUE(is_valid_utf8(rest));
  out.text += rest;
  out.stopped = filter.stopped();
  out.stopped_by = filter.stopped_by();
  return out;
}

class OutputFilterTest : public testing::Test {
 protected:
  // Every way to cut `text` in two and in three pieces (at any byte, splitting characters
  // too) must give `expected`, stopping exactly when `stops`.
  void expect_at_every_split(std::string_view text, std::string_view expected, bool stops) {
    for (std::size_t i = 0; i <= text.size(); ++i) {
      const Streamed two = stream(rules_, {text.substr(0, i), text.substr(i)});
      ASSERT_EQ(two.text, expected) << "split at " << i;
      ASSERT_EQ(two.stopped, stops) << "split at " << i;
      for (std::size_t j = i; j <= text.size(); ++j) {
        const Streamed three =
            stream(rules_, {text.substr(0, i), text.substr(i, j - i), text.substr(j)});
        ASSERT_EQ(three.text, expected) << "splits at " << i << ", " << j;
        ASSERT_EQ(three.stopped, stops) << "splits at " << i << ", " << j;
      }
    }
    std::vector<std::string_view> bytes;
    for (std::size_t i = 0; i < text.size(); ++i)
      bytes.push_back(text.substr(i, 1));
    const Streamed one_by_one = stream(rules_, bytes);
    EXPECT_EQ(one_by_one.text, expected);
    EXPECT_EQ(one_by_one.stopped, stops);
  }

  std::shared_ptr<const RuleSet> rules_ = rules_from(kRules);
};

TEST_F(OutputFilterTest, StopsBeforeARefusedWordAtEverySplit) {
  expect_at_every_split("Sure! To make a bomb you need", "Sure! To make a ", true);
  const std::string text = "Sure! To make a bomb you need";
  const Streamed out = stream(rules_, {"Sure! To make a bo", "mb you need"});
  ASSERT_TRUE(out.stopped_by);
  EXPECT_EQ(out.stopped_by->rule->category, "violence");
  EXPECT_EQ(text.substr(out.stopped_by->begin, out.stopped_by->end - out.stopped_by->begin),
            "bomb");
}

TEST_F(OutputFilterTest, StopsOnChineseAndFullWidthTermsAtEverySplit) {
  expect_at_every_split("好的，炸弹的做法是", "好的，", true);
  expect_at_every_split("a ＢＯＭＢ!", "a ", true);
  expect_at_every_split("It's a BoMb.", "It's a ", true);
}

TEST_F(OutputFilterTest, StopsOnARefusedRegexAtEverySplit) {
  expect_at_every_split("Pay the wire  transfer fee now", "Pay the ", true);
}

TEST_F(OutputFilterTest, MasksAtEverySplit) {
  expect_at_every_split("damn, the ass is acct-1234567 ok", "****, the *** is ************ ok",
                        false);
  expect_at_every_split("你他妈的快点ＤＡＭＮ", "你***快点****", false);
}

TEST_F(OutputFilterTest, WordBoundariesWaitForTheNextCharacter) {
  expect_at_every_split("a class of bass players assert", "a class of bass players assert", false);
  expect_at_every_split("you ass", "you ***", false);  // the end of the answer is a boundary
  OutputFilter filter(rules_from("mask profanity word: ass\nrefuse violence word: bomb\n"));
  EXPECT_EQ(filter.push("you ass"), "you ");  // "ass" may still be "assert"
  EXPECT_EQ(filter.push("e"), "");            // "asse" may be nothing, but 'e' may take an accent
  EXPECT_EQ(filter.push("rt it"), "assert i");
  EXPECT_EQ(filter.finish(), "t");
  EXPECT_FALSE(filter.stopped());
}

TEST_F(OutputFilterTest, HoldsBackOnlyWhatCouldStillMatch) {
  // Regular expressions hold back their longest width; words only a tail that is a prefix.
  const auto words = rules_from("refuse violence word: bomb\nmask profanity word: damn\n");
  OutputFilter filter(words);
  EXPECT_EQ(filter.push("I will bo"), "I will ");  // "bo" may become "bomb"
  EXPECT_EQ(filter.push("ok it. "), "book it. ");  // nothing can combine with a space
  EXPECT_EQ(filter.push("Da"), "");
  EXPECT_EQ(filter.push("mn"), "");  // "damn" waits for its right boundary
  EXPECT_EQ(filter.push("!"), "****!");
  EXPECT_EQ(filter.finish(), "");
}

TEST_F(OutputFilterTest, RegexRulesHoldTheirLongestWidth) {
  // acct-[0-9]{6,10} is at most 15 bytes long: a match ending later starts in the last 14.
  // (\d is Unicode-aware: a digit may take 4 bytes, so acct-\d{6,10} may take 45.)
  EXPECT_EQ(rules_from("mask account regex: acct-\\d{6,10}\n")->longest_output_match(), 45u);
  const auto regex = rules_from("mask account regex: acct-[0-9]{6,10}\n");
  EXPECT_EQ(regex->longest_output_match(), 15u);
  OutputFilter filter(regex);
  EXPECT_EQ(filter.push("Your account number is "), "Your acco");  // 23 - 14 bytes
  // The match must not be cut: the emission point stops at its start until it is complete.
  EXPECT_EQ(filter.push("acct-12345678, thanks. "), "unt number is ");
  EXPECT_EQ(filter.finish(), std::string(13, '*') + ", thanks. ");
}

TEST_F(OutputFilterTest, HeldTextIsBoundedByTheLongestMatch) {
  const std::string text =
      "Thanks for waiting. Your parcel left our warehouse and should arrive on Friday; the "
      "courier will call before delivery. 谢谢您的耐心等待，包裹已经发出。";
  OutputFilter filter(rules_);
  std::string out;
  for (char c : text) {
    out += filter.push(std::string_view(&c, 1));
    EXPECT_LE(filter.held_bytes(), rules_->longest_output_match() + 8);  // + split characters
  }
  out += filter.finish();
  EXPECT_EQ(out, text);
}

TEST_F(OutputFilterTest, NothingIsEmittedAfterAStop) {
  OutputFilter filter(rules_);
  EXPECT_EQ(filter.push("ok bomb "), "ok ");
  EXPECT_TRUE(filter.stopped());
  EXPECT_EQ(filter.push("more text"), "");
  EXPECT_EQ(filter.finish(), "");
  EXPECT_EQ(filter.held_bytes(), 0u);
}

TEST_F(OutputFilterTest, InputOnlyRulesDoNotApplyToAnswers) {
  EXPECT_EQ(stream(rules_, {"We sent your ", "refund."}).text, "We sent your refund.");
}

TEST_F(OutputFilterTest, ReportsEachFlagRuleOnce) {
  OutputFilter filter(rules_);
  std::string out = filter.push("ACME Corp is good; acme co");
  out += filter.push("rp too. ");
  std::vector<RuleHit> flags = filter.take_flags();
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].rule->category, "competitor");
  EXPECT_EQ(flags[0].begin, 0u);
  EXPECT_EQ(flags[0].end, 9u);
  out += filter.finish();
  EXPECT_TRUE(filter.take_flags().empty());
  EXPECT_EQ(out, "ACME Corp is good; acme corp too. ");
}

TEST_F(OutputFilterTest, IllFormedAndSplitCharactersStayValid) {
  const Streamed out = stream(rules_, {"ok \xE7\x82", "\xB8\xE5", "\xBC\xB9 no", "\xFF"});
  EXPECT_EQ(out.text, "ok ");  // 炸弹 assembled across three pieces
  EXPECT_TRUE(out.stopped);
  const Streamed bad = stream(rules_, {"a\xFF", "b\xE7\x82"});  // a dangling lead at the end
  EXPECT_EQ(bad.text,
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
}

TEST_F(OutputFilterTest, RandomPiecesGiveTheSameAnswer) {
  const std::string text =
      "Hello! DAMN, your acct-99887766 is fine. 你他妈的 ask the ass later; ＡＣＭＥ corp "
      "says hi. A wire transfer fee applies. Bye.";
  const std::string expected = "Hello! ****, your " + std::string(13, '*') +
                               " is fine. 你*** ask the *** later; ＡＣＭＥ corp says hi. A ";
  std::mt19937 random(42);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string_view> pieces;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t size = std::uniform_int_distribution<std::size_t>(1, 9)(random);
      pieces.push_back(std::string_view(text).substr(at, size));
      at += size;
    }
    const Streamed out = stream(rules_, pieces);
    ASSERT_EQ(out.text, expected) << "round " << round;
    ASSERT_TRUE(out.stopped);
    EXPECT_EQ(out.stopped_by->rule->category, "fraud");
  }
}

TEST_F(OutputFilterTest, ArbitraryBytesAlwaysComeOutAsValidUtf8) {
  // Seeded random bytes biased towards the interesting ones: rule text, UTF-8 lead and
  // continuation bytes, combining marks, full-width forms.
  const std::vector<std::string> atoms = {
      "bomb",         "ass",  "acct-", "7", " ",     "\xE7\x82", "\xB8", "\xCC\x81",
      "\xEF\xBC\xA2", "\xFF", "\xC3",  "e", "wire ", "transfer", " fee", "炸弹"};
  std::mt19937 random(7);
  for (int round = 0; round < 300; ++round) {
    std::string text;
    const int count = std::uniform_int_distribution<int>(1, 30)(random);
    for (int i = 0; i < count; ++i)
      text += atoms[std::uniform_int_distribution<std::size_t>(0, atoms.size() - 1)(random)];
    std::vector<std::string_view> pieces;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t size = std::uniform_int_distribution<std::size_t>(1, 5)(random);
      pieces.push_back(std::string_view(text).substr(at, size));
      at += size;
    }
    const Streamed out = stream(rules_, pieces);  // checks validity of every piece
    // Whatever was emitted is a prefix of what the whole text gives in one piece.
    const Streamed whole = stream(rules_, {text});
    ASSERT_EQ(out.text, whole.text) << "round " << round;
    ASSERT_EQ(out.stopped, whole.stopped) << "round " << round;
  }
}

TEST_F(OutputFilterTest, AWholeTextIsMaskedOrRefusedAsItsStreamWouldBe) {
  EXPECT_EQ(filter_whole(rules_, "damn, acct-1234567 is yours"), "****, ************ is yours");
  EXPECT_EQ(filter_whole(rules_, "Sure! To make a bomb you need"), std::nullopt);
  EXPECT_EQ(filter_whole(rules_, "a refund is fine in an answer"), "a refund is fine in an answer");
  EXPECT_EQ(filter_whole(rules_, ""), "");
  EXPECT_EQ(filter_whole(RuleSet::empty(), "bomb 炸弹"), "bomb 炸弹");  // nothing for output
  EXPECT_EQ(filter_whole(RuleSet::empty(), "bomb \xE7\x82"), "bomb \xEF\xBF\xBD");
}

TEST(OutputFilterNoRulesTest, PassesTextThroughAtOnce) {
  OutputFilter filter(RuleSet::empty());
  EXPECT_EQ(filter.push("bomb \xE7\x82"), "bomb ");
  EXPECT_EQ(filter.push("\xB8"), "炸");
  EXPECT_EQ(filter.finish(), "");
  EXPECT_FALSE(filter.stopped());
}

}  // namespace
}  // namespace supportd::filter
