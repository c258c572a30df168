// A content rule as written in a tenant's rule file, and a place where one matched.
// Plain values; see rule_file.h for the file format and rule_set.h for matching.
#pragma once

#include <cstddef>
#include <string>

namespace supportd::filter {

// What happens to text a rule matches.
enum class Action {
  kRefuse,  // input: refuse the message; output: stop the stream before the match
  kMask,    // replace the matched text with one '*' per character
  kFlag,    // let the text through unchanged; report the rule (for review, metrics)
};

// Which side of the conversation a rule watches.
enum class Scope {
  kBoth,    // customer messages and generated answers
  kInput,   // customer messages only
  kOutput,  // generated answers only
};

enum class RuleKind {
  kWord,   // literal text; English-like words match only as whole words, Chinese anywhere
  kRegex,  // a Hyperscan regular expression (PCRE syntax without backreferences/lookaround)
};

const char* action_name(Action action);
const char* scope_name(Scope scope);
const char* rule_kind_name(RuleKind kind);

struct Rule {
  Action action = Action::kRefuse;
  Scope scope = Scope::kBoth;
  RuleKind kind = RuleKind::kWord;
  std::string category;  // e.g. "violence": names the rule group in logs and metrics
  std::string text;      // the word or the pattern, as written
  std::string source;    // "file:line", for error messages and audit logs

  bool applies_to_input() const { return scope != Scope::kOutput; }
  bool applies_to_output() const { return scope != Scope::kInput; }
};

// One match of a rule. Offsets are bytes of the checked text (for a stream: of everything fed
// to it), always on UTF-8 character boundaries. `rule` points into its RuleSet, which must
// outlive the hit.
struct RuleHit {
  const Rule* rule = nullptr;
  std::size_t begin = 0;
  std::size_t end = 0;
};

}  // namespace supportd::filter
