// Internal to filter/: a RuleSet's compiled form, shared by the input check and the output
// filter. Immutable after RuleSet::compile().
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "filter/pattern_database.h"
#include "filter/rule.h"

namespace supportd::filter {

struct CompiledRule {
  std::string word;              // kWord: the word normalized (NFKC_Casefold)
  std::string pattern;           // kRegex: the pattern with its literals case-folded
  bool boundary_before = false;  // kWord: starts with a word character, needs a boundary
  bool boundary_after = false;   // kWord: ends with a word character, needs a boundary
  std::size_t max_width = 0;     // longest match in normalized bytes (kUnbounded possible)
};

// The rules of one side (input or output) in one Hyperscan database.
struct CompiledSide {
  std::unique_ptr<PatternDatabase> database;  // null when no rule applies to this side
  std::vector<std::size_t> rule_of_pattern;   // pattern index -> index in CompiledRules::rules
};

// Hashes std::string and std::string_view alike, so sets of strings can be probed with views.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

struct CompiledRules {
  std::vector<Rule> rules;
  std::vector<CompiledRule> compiled;  // parallel to rules
  std::string notice;
  CompiledSide input;
  CompiledSide output;
  // Every prefix (at character boundaries, the whole word included) of the output words: the
  // tail of a stream that is one of these may still become a match, so it is held back.
  std::unordered_set<std::string, StringHash, std::equal_to<>> output_word_prefixes;
  std::size_t longest_output_word = 0;
  std::size_t longest_output_regex = 0;
};

// True when a word rule's match [begin, end) of normalized `text` stands on word boundaries.
// The end of `text` counts as a boundary.
bool word_boundaries_hold(const CompiledRule& rule, std::string_view text, std::size_t begin,
                          std::size_t end);

// A regular expression with its literal letters case-folded (the text it runs on is), its
// escapes (\D, \p{Lu}, \x{41}) left as written.
std::string fold_pattern_case(std::string_view pattern);

// Appends `original` with every character replaced by '*'.
void append_mask(std::string& out, std::string_view original);

}  // namespace supportd::filter
