// A tenant's content rules, compiled once: sensitive words and regular expressions with an
// action each (refuse, mask, flag), matched all together by Hyperscan over NFKC-casefolded
// text (text_normalizer.h), so full-width and case variants are caught. The desk checks each
// customer message with check_input() and streams each answer through an OutputFilter
// (output_filter.h). Thread-safe: immutable after load; share it as shared_ptr<const RuleSet>.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "filter/rule.h"
#include "filter/rule_file.h"

namespace supportd::filter {

struct CompiledRules;

// What to do with a customer message.
enum class Decision {
  kAllow,   // pass `text` on unchanged
  kMask,    // pass `text` on: mask rules replaced what they matched
  kRefuse,  // do not answer from the model; tell the customer RuleSet::notice()
};

struct InputVerdict {
  Decision decision = Decision::kAllow;
  // The message to use from here on: valid UTF-8 (ill-formed bytes became U+FFFD), masked when
  // decision == kMask. Offsets of the hits below refer to the text before masking.
  std::string text;
  std::optional<RuleHit> refused_by;  // kRefuse: the first refusing match
  std::vector<RuleHit> masked;        // every masked match, in order
  std::vector<RuleHit> flagged;       // the first match of each flag rule that matched
};

class RuleSet {
 public:
  // Reads, validates and compiles a rule file (format: rule_file.h). Fails with kIo when it
  // cannot be read, kInvalidArgument "file:line: reason" for the first bad rule or pattern.
  static Result<std::shared_ptr<const RuleSet>> load(const std::string& path);
  // Compiles parsed rules; the same errors as load() (naming each rule's source).
  static Result<std::shared_ptr<const RuleSet>> compile(RuleFile file);
  // A rule set with no rules: allows everything, holds nothing back.
  static std::shared_ptr<const RuleSet> empty();

  ~RuleSet();
  RuleSet(const RuleSet&) = delete;
  RuleSet& operator=(const RuleSet&) = delete;

  // Checks a customer message against the rules that apply to input. Refuse wins over mask;
  // flags are reported whatever the decision.
  InputVerdict check_input(std::string_view message) const;

  const std::vector<Rule>& rules() const;
  // What the customer is told when a message or an answer is refused.
  const std::string& notice() const;
  // The most text (normalized bytes) an OutputFilter may hold back: its longest possible match.
  std::size_t longest_output_match() const;
  // Whether any rule applies to output (false: an OutputFilter passes text through as it is).
  bool filters_output() const;

  // Longest word or regular-expression match a rule that applies to output may have, in
  // normalized bytes; longer rules are rejected at load so streams stay responsive.
  static constexpr std::size_t kMaxOutputMatch = 256;

 private:
  friend class OutputFilter;
  explicit RuleSet(std::unique_ptr<const CompiledRules> compiled);

  std::unique_ptr<const CompiledRules> compiled_;
};

}  // namespace supportd::filter
