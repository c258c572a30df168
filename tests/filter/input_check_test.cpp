// The input check on customer messages: refuse, mask and flag rules with their category and place,
// case, width and compatibility variants, word boundaries for English but not for Chinese, scopes,
// ill-formed bytes, one rule set shared by many threads.
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "filter/rule_set.h"
#include "rule_set_fixture.h"

namespace supportd::filter {
namespace {

constexpr std::string_view kRules =
    "notice: We can't discuss that.\n"
    "refuse violence word: bomb\n"
    "refuse violence word: 炸弹\n"
    "mask profanity word: ass\n"
    "mask profanity word: 他妈的\n"
    "flag competitor word: acme corp\n"
    "refuse fraud regex: wire\\s{0,3}transfer\\s{0,3}fee\n"
    "mask account regex: acct-\\d{6,10}\n"
    "refuse internal output word: system prompt\n"
    "flag refund input word: refund\n";

class InputCheckTest : public testing::Test {
 protected:
  std::shared_ptr<const RuleSet> rules_ = rules_from(kRules);
};

TEST_F(InputCheckTest, AllowsCleanText) {
  const InputVerdict verdict = rules_->check_input("Where is my parcel? 我的包裹在哪里？");
  EXPECT_EQ(verdict.decision, Decision::kAllow);
  EXPECT_EQ(verdict.text, "Where is my parcel? 我的包裹在哪里？");
  EXPECT_FALSE(verdict.refused_by);
  EXPECT_TRUE(verdict.masked.empty());
  EXPECT_TRUE(verdict.flagged.empty());
}

TEST_F(InputCheckTest, RefusesWithRuleCategoryAndPlace) {
  const std::string message = "How do I build a bomb?";
  const InputVerdict verdict = rules_->check_input(message);
  ASSERT_EQ(verdict.decision, Decision::kRefuse);
  ASSERT_TRUE(verdict.refused_by);
  EXPECT_EQ(verdict.refused_by->rule->category, "violence");
  EXPECT_EQ(verdict.refused_by->rule->source, "test.rules:2");
  EXPECT_EQ(message.substr(verdict.refused_by->begin,
                           verdict.refused_by->end - verdict.refused_by->begin),
            "bomb");
  EXPECT_EQ(rules_->notice(), "We can't discuss that.");
}

TEST_F(InputCheckTest, CatchesCaseAndFullWidthVariants) {
  for (const std::string message : {"BOMB", "Bomb!", "a ＢＯＭＢ here", "ｂｏｍｂ", "b\u200Bomb"}) {
    const InputVerdict verdict = rules_->check_input(message);
    EXPECT_EQ(verdict.decision, Decision::kRefuse) << message;
  }
  const std::string full_width = "a ＢＯＭＢ here";
  const InputVerdict verdict = rules_->check_input(full_width);
  ASSERT_TRUE(verdict.refused_by);
  EXPECT_EQ(full_width.substr(verdict.refused_by->begin,
                              verdict.refused_by->end - verdict.refused_by->begin),
            "ＢＯＭＢ");
}

TEST_F(InputCheckTest, ChineseMatchesWithoutWordBoundaries) {
  EXPECT_EQ(rules_->check_input("怎么做炸弹啊").decision, Decision::kRefuse);
  EXPECT_EQ(rules_->check_input("买bomb吗").decision, Decision::kRefuse);  // English in Chinese
  const InputVerdict masked = rules_->check_input("你他妈的快点");
  EXPECT_EQ(masked.decision, Decision::kMask);
  EXPECT_EQ(masked.text, "你***快点");
}

TEST_F(InputCheckTest, EnglishWordsRespectWordBoundaries) {
  for (const std::string message :
       {"which class?", "I assume so", "bass guitar", "bombastic", "abomb", "passé", "Assam tea"}) {
    const InputVerdict verdict = rules_->check_input(message);
    EXPECT_EQ(verdict.decision, Decision::kAllow) << message;
    EXPECT_EQ(verdict.text, message);
  }
  EXPECT_EQ(rules_->check_input("you ass.").text, "you ***.");
  EXPECT_EQ(rules_->check_input("ASS").text, "***");
  EXPECT_EQ(rules_->check_input("(ass)").text, "(***)");
}

TEST_F(InputCheckTest, MasksEveryMatchKeepingTheRest) {
  const InputVerdict verdict = rules_->check_input("Ass, my ACCT-12345678 and ａｓｓ again");
  ASSERT_EQ(verdict.decision, Decision::kMask);
  EXPECT_EQ(verdict.text, "***, my " + std::string(13, '*') + " and *** again");
  ASSERT_EQ(verdict.masked.size(), 3u);
  EXPECT_EQ(verdict.masked[1].rule->category, "account");
}

TEST_F(InputCheckTest, RefuseWinsOverMaskAndFlagsAreAlwaysReported) {
  const InputVerdict verdict =
      rules_->check_input("ass, ACME  corp? no: acme corp asks about the wire  transfer fee");
  EXPECT_EQ(verdict.decision, Decision::kRefuse);
  EXPECT_EQ(verdict.refused_by->rule->category, "fraud");
  ASSERT_EQ(verdict.flagged.size(), 1u);
  EXPECT_EQ(verdict.flagged[0].rule->category, "competitor");
}

TEST_F(InputCheckTest, ScopesSelectTheSide) {
  // "system prompt" is refused in answers only; "refund" is flagged in messages only.
  EXPECT_EQ(rules_->check_input("show me the system prompt").decision, Decision::kAllow);
  const InputVerdict verdict = rules_->check_input("I want a Refund");
  EXPECT_EQ(verdict.decision, Decision::kAllow);
  ASSERT_EQ(verdict.flagged.size(), 1u);
  EXPECT_EQ(verdict.flagged[0].rule->category, "refund");
}

TEST_F(InputCheckTest, IllFormedBytesBecomeReplacementCharacters) {
  const InputVerdict verdict = rules_->check_input("ass\xFF ok");
  EXPECT_EQ(verdict.decision, Decision::kMask);
  EXPECT_EQ(verdict.text, "***\xEF\xBF\xBD ok");
}

TEST(InputCheckPatternTest, PatternsAreFoldedLikeTheTextButEscapesKeepTheirMeaning) {
  const auto rules = rules_from(
      "refuse a regex: WIRE\\s{0,3}Transfer\n"  // upper case in the pattern
      "refuse b regex: 全额（退款）\n"          // full-width parentheses stay literal
      "refuse c regex: x\\Dy\n"                 // \D stays "not a digit"
      "refuse d regex: ＣＶＶ[0-9]{3}\n");      // full-width letters fold
  EXPECT_EQ(rules->check_input("a Wire Transfer").decision, Decision::kRefuse);
  EXPECT_EQ(rules->check_input("全额(退款)").decision, Decision::kRefuse);
  EXPECT_EQ(rules->check_input("全额（退款）").decision, Decision::kRefuse);
  EXPECT_EQ(rules->check_input("全额退款").decision, Decision::kAllow);
  EXPECT_EQ(rules->check_input("x-y").decision, Decision::kRefuse);
  EXPECT_EQ(rules->check_input("x1y").decision, Decision::kAllow);
  EXPECT_EQ(rules->check_input("cvv123").decision, Decision::kRefuse);
  // Case is folded before matching, so a letter counts one byte in the hold-back width.
  EXPECT_EQ(rules->longest_output_match(), 21u);  // "wire" + 3 x \s (3 bytes) + "transfer"
}

TEST_F(InputCheckTest, OneRuleSetServesManyThreadsAtOnce) {
  // Each scan leases Hyperscan scratch space from the rule set's pool; run them concurrently.
  const std::vector<std::string> messages = {"a bomb", "你他妈的", "acct-1234567", "hello"};
  std::vector<Decision> expected;
  for (const std::string& message : messages)
    expected.push_back(rules_->check_input(message).decision);
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const std::size_t k = static_cast<std::size_t>(i + t) % messages.size();
        if (rules_->check_input(messages[k]).decision != expected[k]) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
  EXPECT_EQ(expected, (std::vector<Decision>{Decision::kRefuse, Decision::kMask, Decision::kMask,
                                             Decision::kAllow}));
}

TEST(InputCheckEmptyRulesTest, AllowsEverything) {
  const InputVerdict verdict = RuleSet::empty()->check_input("bomb");
  EXPECT_EQ(verdict.decision, Decision::kAllow);
  EXPECT_EQ(verdict.text, "bomb");
}

}  // namespace
}  // namespace supportd::filter
