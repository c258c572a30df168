// The rule file format: one rule per line, '#' starts a comment line, blank lines are ignored.
//
//   ACTION CATEGORY [input|output] word: TEXT
//   ACTION CATEGORY [input|output] regex: PATTERN
//   notice: TEXT
//
// ACTION is refuse, mask or flag; CATEGORY is [a-z0-9_.-]+; a rule without input/output
// applies to both sides. TEXT and PATTERN run to the end of the line (surrounding blanks are
// trimmed). `notice:` sets what the customer is told when a message or answer is refused.
// src/filter/README.md documents the format with examples.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "filter/rule.h"

namespace supportd::filter {

struct RuleFile {
  std::vector<Rule> rules;
  std::string notice;  // empty when the file sets none
};

// Parses a rule file's text. `source` names the file in messages ("tenants/acme.rules").
// Fails with kInvalidArgument and a message "source:line: what is wrong" on the first bad line.
// Checks syntax only; patterns are validated when a RuleSet compiles them.
Result<RuleFile> parse_rule_file(std::string_view text, std::string_view source);

// Reads and parses `path`. Fails with kIo when the file cannot be read.
Result<RuleFile> read_rule_file(const std::string& path);

}  // namespace supportd::filter
