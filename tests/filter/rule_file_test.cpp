// Rule files: every form of rule line parses; syntax and pattern errors name the file and line;
// a missing file is reported.
#include "filter/rule_file.h"

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "filter/rule_set.h"

namespace supportd::filter {
namespace {

std::string error_of(std::string_view text) {
  Result<RuleFile> file = parse_rule_file(text, "acme.rules");
  return file.ok() ? std::string("(parsed)") : file.error().message;
}

std::string compile_error_of(std::string_view text) {
  Result<RuleFile> file = parse_rule_file(text, "acme.rules");
  if (!file.ok()) return "parse error: " + file.error().message;
  Result<std::shared_ptr<const RuleSet>> rules = RuleSet::compile(std::move(file).value());
  return rules.ok() ? std::string("(compiled)") : rules.error().message;
}

TEST(RuleFileTest, ParsesEveryFormOfRuleLine) {
  const std::string_view text =
      "\xEF\xBB\xBF# acme's rules\n"
      "\n"
      "notice: Sorry, I cannot help with that.\n"
      "refuse violence word: 炸弹\n"
      "mask   profanity  word:   damn it  \n"
      "flag competitor output word:acme corp\n"
      "refuse fraud input regex: wire\\s{0,3}transfer\r\n"
      "  # an indented comment\n";
  Result<RuleFile> file = parse_rule_file(text, "acme.rules");
  ASSERT_TRUE(file.ok()) << file.error().message;
  EXPECT_EQ(file->notice, "Sorry, I cannot help with that.");
  ASSERT_EQ(file->rules.size(), 4u);

  const Rule& bomb = file->rules[0];
  EXPECT_EQ(bomb.action, Action::kRefuse);
  EXPECT_EQ(bomb.category, "violence");
  EXPECT_EQ(bomb.scope, Scope::kBoth);
  EXPECT_EQ(bomb.kind, RuleKind::kWord);
  EXPECT_EQ(bomb.text, "炸弹");
  EXPECT_EQ(bomb.source, "acme.rules:4");

  EXPECT_EQ(file->rules[1].action, Action::kMask);
  EXPECT_EQ(file->rules[1].text, "damn it");  // inner blanks kept, outer trimmed

  EXPECT_EQ(file->rules[2].action, Action::kFlag);
  EXPECT_EQ(file->rules[2].scope, Scope::kOutput);
  EXPECT_EQ(file->rules[2].text, "acme corp");

  EXPECT_EQ(file->rules[3].scope, Scope::kInput);
  EXPECT_EQ(file->rules[3].kind, RuleKind::kRegex);
  EXPECT_EQ(file->rules[3].text, "wire\\s{0,3}transfer");
  EXPECT_EQ(file->rules[3].source, "acme.rules:7");
}

TEST(RuleFileTest, SyntaxErrorsNameFileAndLine) {
  EXPECT_EQ(error_of("refuse a word: x\nblock violence word: bomb\n"),
            "acme.rules:2: unknown action 'block' (expected refuse, mask or flag)");
  EXPECT_EQ(error_of("refuse word: bomb"),
            "acme.rules:1: missing category after the action (e.g. 'refuse violence word: ...')");
  EXPECT_EQ(error_of("\n\nrefuse Violence word: bomb"),
            "acme.rules:3: invalid category 'Violence' (use a-z, 0-9, '_', '.', '-')");
  EXPECT_EQ(error_of("refuse violence"),
            "acme.rules:1: missing 'word:' or 'regex:' after the category");
  EXPECT_EQ(error_of("refuse violence both word: bomb"),
            "acme.rules:1: expected 'input', 'output', 'word:' or 'regex:', found 'both'");
  EXPECT_EQ(error_of("# ok\nmask profanity word:   \n"), "acme.rules:2: empty word");
  EXPECT_EQ(error_of("notice: one\nnotice: two\n"), "acme.rules:2: notice is set twice");
  EXPECT_EQ(error_of("refuse x word: ok\nrefuse x word: \xFF\xFE\n"),
            "acme.rules:2: line is not valid UTF-8");
}

TEST(RuleFileTest, PatternErrorsNameFileAndLine) {
  EXPECT_EQ(compile_error_of("refuse a word: ok\nrefuse a regex: (unclosed\n").substr(0, 30),
            "acme.rules:2: invalid regex: M");
  EXPECT_EQ(compile_error_of("refuse a regex: a*"), "acme.rules:1: regex can match empty text");
  EXPECT_EQ(compile_error_of("flag a word: \xE2\x80\x8B"),  // a lone zero-width space
            "acme.rules:1: word '\xE2\x80\x8B' is empty after normalization");
  // Streamed answers are held back by the longest possible match, so it must be bounded...
  EXPECT_NE(compile_error_of("\nrefuse fraud regex: free\\s*money")
                .find("acme.rules:2: regex can match text of unbounded length"),
            std::string::npos);
  EXPECT_NE(compile_error_of("refuse fraud regex: x{300}").find("up to 300 bytes"),
            std::string::npos);
  // ...but not for customer messages, which are checked whole.
  EXPECT_EQ(compile_error_of("refuse fraud input regex: free\\s*money"), "(compiled)");
  EXPECT_EQ(compile_error_of(std::string("flag long word: ") + std::string(300, 'a')).substr(0, 40),
            "acme.rules:1: word is 300 bytes long; ru");
  // Backreferences are beyond Hyperscan: the error still names the line.
  EXPECT_EQ(compile_error_of("mask a regex: (ab)\\1").substr(0, 29),
            "acme.rules:1: invalid regex: ");
}

TEST(RuleFileTest, LoadReadsAFileAndReportsMissingOnes) {
  const std::string path = testing::TempDir() + "/filter-rule-file-test.rules";
  {
    std::ofstream out(path);
    out << "notice: no\nrefuse violence word: bomb\nmask pii regex: \\d{4}-\\d{4}\n";
  }
  Result<std::shared_ptr<const RuleSet>> rules = RuleSet::load(path);
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  EXPECT_EQ((*rules)->rules().size(), 2u);
  EXPECT_EQ((*rules)->notice(), "no");
  EXPECT_EQ((*rules)->rules()[1].source, path + ":3");
  std::remove(path.c_str());

  Result<std::shared_ptr<const RuleSet>> missing = RuleSet::load(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kIo);
  EXPECT_NE(missing.error().message.find(path), std::string::npos);
}

}  // namespace
}  // namespace supportd::filter
