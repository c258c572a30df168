// Parsing rule files (see rule_file.h): one rule per line; each error names the file and line.
#include "filter/rule_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/text.h"
#include "core/utf8.h"

namespace supportd::filter {
namespace {

constexpr std::string_view kBlanks = " \t\r";

// Splits off the next blank-separated token of `rest`.
std::string_view next_token(std::string_view& rest) {
  rest = trim(rest);
  const std::size_t end = std::min(rest.find_first_of(kBlanks), rest.size());
  std::string_view token = rest.substr(0, end);
  rest.remove_prefix(end);
  return token;
}

bool valid_category(std::string_view category) {
  if (category.empty() || category.size() > 64) return false;
  for (char c : category) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

class LineParser {
 public:
  LineParser(std::string_view source, std::size_t line) : source_(source), line_(line) {}

  Error error(std::string_view what) const {
    return Error::invalid(fmt::format("{}:{}: {}", source_, line_, what),
                          fmt::format("{}:{}", source_, line_));
  }

  // A rule line: ACTION CATEGORY [SCOPE] KIND: BODY
  Result<Rule> rule(std::string_view line) const {
    Rule rule;
    rule.source = fmt::format("{}:{}", source_, line_);
    std::string_view rest = line;

    const std::string_view action = next_token(rest);
    if (action == "refuse") {
      rule.action = Action::kRefuse;
    } else if (action == "mask") {
      rule.action = Action::kMask;
    } else if (action == "flag") {
      rule.action = Action::kFlag;
    } else {
      return error(fmt::format("unknown action '{}' (expected refuse, mask or flag)", action));
    }

    const std::string_view category = next_token(rest);
    if (category.empty() || category.ends_with(':'))
      return error("missing category after the action (e.g. 'refuse violence word: ...')");
    if (!valid_category(category))
      return error(fmt::format("invalid category '{}' (use a-z, 0-9, '_', '.', '-')", category));
    rule.category = std::string(category);

    rest = trim(rest);
    for (const Scope scope : {Scope::kInput, Scope::kOutput}) {
      const std::string_view name = scope_name(scope);
      if (rest.starts_with(name) && rest.size() > name.size() &&
          kBlanks.find(rest[name.size()]) != std::string_view::npos) {
        rule.scope = scope;
        rest = trim(rest.substr(name.size()));
      }
    }
    if (rest.starts_with("word:")) {
      rule.kind = RuleKind::kWord;
      rest.remove_prefix(5);
    } else if (rest.starts_with("regex:")) {
      rule.kind = RuleKind::kRegex;
      rest.remove_prefix(6);
    } else if (rest.empty()) {
      return error("missing 'word:' or 'regex:' after the category");
    } else {
      return error(fmt::format("expected 'input', 'output', 'word:' or 'regex:', found '{}'",
                               next_token(rest)));
    }

    const std::string_view body = trim(rest);
    if (body.empty()) return error(fmt::format("empty {}", rule_kind_name(rule.kind)));
    rule.text = std::string(body);
    return rule;
  }

 private:
  std::string_view source_;
  std::size_t line_;
};

}  // namespace

Result<RuleFile> parse_rule_file(std::string_view text, std::string_view source) {
  RuleFile file;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t newline = std::min(text.find('\n'), text.size());
    const std::string_view raw = text.substr(0, newline);
    text.remove_prefix(std::min(newline + 1, text.size()));

    const LineParser parser(source, line_number);
    if (!is_valid_utf8(raw)) return parser.error("line is not valid UTF-8");
    std::string_view line = trim(raw);
    if (line_number == 1 && line.starts_with("\xEF\xBB\xBF")) line = trim(line.substr(3));  // BOM
    if (line.empty() || line.front() == '#') continue;

    if (line.starts_with("notice:")) {
      const std::string_view notice = trim(line.substr(7));
      if (notice.empty()) return parser.error("empty notice");
      if (!file.notice.empty()) return parser.error("notice is set twice");
      file.notice = std::string(notice);
      continue;
    }
    Result<Rule> rule = parser.rule(line);
    if (!rule.ok()) return rule.error();
    file.rules.push_back(std::move(rule).value());
  }
  return file;
}

Result<RuleFile> read_rule_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Error::make(ErrorCode::kIo,
                       fmt::format("cannot read rule file {}: {}", path, std::strerror(errno)));
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return Error::make(ErrorCode::kIo, fmt::format("error reading rule file {}", path));
  return parse_rule_file(content.str(), path);
}

const char* action_name(Action action) {
  switch (action) {
    case Action::kRefuse: return "refuse";
    case Action::kMask: return "mask";
    case Action::kFlag: return "flag";
  }
  return "refuse";
}

const char* scope_name(Scope scope) {
  switch (scope) {
    case Scope::kBoth: return "both";
    case Scope::kInput: return "input";
    case Scope::kOutput: return "output";
  }
  return "both";
}

const char* rule_kind_name(RuleKind kind) {
  return kind == RuleKind::kWord ? "word" : "regex";
}

}  // namespace supportd::filter
