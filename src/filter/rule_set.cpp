// Compiling a rule file into a RuleSet (see rule_set.h): word and regex rules into one Hyperscan
// database per side (input, output), and the word-boundary check of a word rule's match.
#include "filter/rule_set.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <unicode/utf8.h>

#include "filter/compiled_rules.h"
#include "filter/text_normalizer.h"
#include "filter/word_boundary.h"

namespace supportd::filter {
namespace {

constexpr std::string_view kDefaultNotice =
    "Sorry, I can't help with that here. Please rephrase, or ask for a human agent.";

bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

Result<CompiledRule> compile_word(const Rule& rule) {
  CompiledRule compiled;
  compiled.word = normalize_text(rule.text).text();
  if (compiled.word.empty()) {
    return Error::invalid(
        fmt::format("{}: word '{}' is empty after normalization", rule.source, rule.text),
        rule.source);
  }
  compiled.boundary_before = word_character_at(compiled.word, 0);
  compiled.boundary_after = word_character_before(compiled.word, compiled.word.size());
  compiled.max_width = compiled.word.size();
  if (rule.applies_to_output() && compiled.max_width > RuleSet::kMaxOutputMatch) {
    return Error::invalid(fmt::format("{}: word is {} bytes long; rules that apply to output are "
                                      "limited to {} (or scope the rule to input)",
                                      rule.source, compiled.max_width, RuleSet::kMaxOutputMatch),
                          rule.source);
  }
  return compiled;
}

Result<CompiledRule> compile_regex(const Rule& rule) {
  CompiledRule compiled;
  compiled.pattern = fold_pattern_case(rule.text);
  Result<PatternWidth> width = inspect_regex({rule.source, compiled.pattern, false});
  if (!width.ok()) return width.error();
  if (width->min == 0) {
    return Error::invalid(fmt::format("{}: regex can match empty text", rule.source), rule.source);
  }
  compiled.max_width = width->max;
  if (rule.applies_to_output()) {
    if (width->max == PatternWidth::kUnbounded) {
      return Error::invalid(
          fmt::format("{}: regex can match text of unbounded length; answers are streamed and "
                      "held back by their longest possible match, so bound every repeat (e.g. "
                      "\\s{{0,3}} instead of \\s*) or scope the rule to input",
                      rule.source),
          rule.source);
    }
    if (width->max > RuleSet::kMaxOutputMatch) {
      return Error::invalid(fmt::format("{}: regex can match up to {} bytes; rules that apply to "
                                        "output are limited to {} (or scope the rule to input)",
                                        rule.source, width->max, RuleSet::kMaxOutputMatch),
                            rule.source);
    }
  }
  return compiled;
}

Status compile_side(const CompiledRules& rules, bool input, PatternDatabase::Mode mode,
                    CompiledSide& side) {
  std::vector<PatternSpec> patterns;
  for (std::size_t i = 0; i < rules.rules.size(); ++i) {
    const Rule& rule = rules.rules[i];
    if (input ? !rule.applies_to_input() : !rule.applies_to_output()) continue;
    const bool word = rule.kind == RuleKind::kWord;
    const CompiledRule& compiled = rules.compiled[i];
    patterns.push_back({rule.source, word ? compiled.word : compiled.pattern, word});
    side.rule_of_pattern.push_back(i);
  }
  if (patterns.empty()) return {};
  Result<std::unique_ptr<PatternDatabase>> database = PatternDatabase::compile(patterns, mode);
  if (!database.ok()) return database.error();
  side.database = std::move(database).value();
  return {};
}

}  // namespace

Result<std::shared_ptr<const RuleSet>> RuleSet::load(const std::string& path) {
  Result<RuleFile> file = read_rule_file(path);
  if (!file.ok()) return file.error();
  return compile(std::move(file).value());
}

Result<std::shared_ptr<const RuleSet>> RuleSet::compile(RuleFile file) {
  auto compiled = std::make_unique<CompiledRules>();
  compiled->notice = file.notice.empty() ? std::string(kDefaultNotice) : std::move(file.notice);
  compiled->rules = std::move(file.rules);
  for (const Rule& rule : compiled->rules) {
    Result<CompiledRule> one =
        rule.kind == RuleKind::kWord ? compile_word(rule) : compile_regex(rule);
    if (!one.ok()) return one.error();
    if (rule.applies_to_output()) {
      if (rule.kind == RuleKind::kWord) {
        const std::string& word = one->word;
        compiled->longest_output_word = std::max(compiled->longest_output_word, word.size());
        for (std::size_t n = 1; n <= word.size(); ++n) {
          if (n == word.size() || !is_continuation_byte(word[n]))
            compiled->output_word_prefixes.insert(word.substr(0, n));
        }
      } else {
        compiled->longest_output_regex = std::max(compiled->longest_output_regex, one->max_width);
      }
    }
    compiled->compiled.push_back(std::move(one).value());
  }
  if (Status s = compile_side(*compiled, true, PatternDatabase::Mode::kBlock, compiled->input); !s)
    return s.error();
  if (Status s = compile_side(*compiled, false, PatternDatabase::Mode::kStream, compiled->output);
      !s)
    return s.error();
  return std::shared_ptr<const RuleSet>(new RuleSet(std::move(compiled)));
}

std::shared_ptr<const RuleSet> RuleSet::empty() {
  auto compiled = std::make_unique<CompiledRules>();
  compiled->notice = std::string(kDefaultNotice);
  return std::shared_ptr<const RuleSet>(new RuleSet(std::move(compiled)));
}

RuleSet::RuleSet(std::unique_ptr<const CompiledRules> compiled) : compiled_(std::move(compiled)) {}

RuleSet::~RuleSet() = default;

const std::vector<Rule>& RuleSet::rules() const {
  return compiled_->rules;
}

const std::string& RuleSet::notice() const {
  return compiled_->notice;
}

bool RuleSet::filters_output() const {
  return compiled_->output.database != nullptr;
}

std::size_t RuleSet::longest_output_match() const {
  return std::max(compiled_->longest_output_word, compiled_->longest_output_regex);
}

bool word_boundaries_hold(const CompiledRule& rule, std::string_view text, std::size_t begin,
                          std::size_t end) {
  if (rule.boundary_before && word_character_before(text, begin)) return false;
  if (rule.boundary_after && word_character_at(text, end)) return false;
  return true;
}

std::string fold_pattern_case(std::string_view pattern) {
  std::string out;
  out.reserve(pattern.size());
  const auto* bytes = reinterpret_cast<const uint8_t*>(pattern.data());
  const auto size = static_cast<int32_t>(pattern.size());
  int32_t i = 0;
  while (i < size) {
    const int32_t start = i;
    UChar32 c = 0;
    U8_NEXT(bytes, i, size, c);
    if (c == '\\' && i < size) {  // an escape stays as written, with its {argument}
      U8_NEXT(bytes, i, size, c);
      if (c == 'c' && i < size) {  // \cX: a control character
        U8_NEXT(bytes, i, size, c);
      } else if (std::string_view("pPxoNgk").find(static_cast<char>(c)) != std::string_view::npos &&
                 c < 0x80 && i < size && pattern[static_cast<std::size_t>(i)] == '{') {
        const std::size_t close = pattern.find('}', static_cast<std::size_t>(i));
        i = close == std::string_view::npos ? size : static_cast<int32_t>(close + 1);
      }
      out.append(
          pattern.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(i - start)));
      continue;
    }
    if (c < 0) {  // ill-formed: rule files are checked for UTF-8, keep the byte regardless
      out.append(
          pattern.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(i - start)));
      continue;
    }
    if (c < 0x80) {
      out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
      continue;
    }
    // The text's normalization, character by character ("Ｂ" -> "b", "ß" -> "ss"); ASCII
    // punctuation it yields ("（" -> "(") stays a literal, not regex syntax.
    const std::string folded = normalize_text(pattern.substr(static_cast<std::size_t>(start),
                                                             static_cast<std::size_t>(i - start)))
                                   .text();
    for (char f : folded) {
      const auto byte = static_cast<unsigned char>(f);
      if (byte < 0x80 && !std::isalnum(byte) && f != ' ') out.push_back('\\');
      out.push_back(f);
    }
  }
  return out;
}

void append_mask(std::string& out, std::string_view original) {
  for (char c : original)
    if (!is_continuation_byte(c)) out.push_back('*');
}

}  // namespace supportd::filter
