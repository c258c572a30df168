// RuleSet::check_input: one block-mode scan of the normalized message, then refuse > mask.
#include <algorithm>

#include "core/utf8.h"
#include "filter/compiled_rules.h"
#include "filter/rule_set.h"
#include "filter/text_normalizer.h"

namespace supportd::filter {

InputVerdict RuleSet::check_input(std::string_view message) const {
  InputVerdict verdict;
  verdict.text = is_valid_utf8(message) ? std::string(message) : sanitize_utf8(message);
  const CompiledSide& side = compiled_->input;
  if (side.database == nullptr || verdict.text.empty()) return verdict;

  const NormalizedText normalized = normalize_text(verdict.text);
  std::vector<PatternMatch> matches;
  side.database->scan(normalized.text(), matches);
  std::sort(matches.begin(), matches.end(), [](const PatternMatch& a, const PatternMatch& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });

  std::vector<bool> flagged(compiled_->rules.size(), false);
  for (const PatternMatch& match : matches) {
    const std::size_t index = side.rule_of_pattern[match.pattern];
    const Rule& rule = compiled_->rules[index];
    if (rule.kind == RuleKind::kWord &&
        !word_boundaries_hold(compiled_->compiled[index], normalized.text(), match.begin,
                              match.end))
      continue;
    const RuleHit hit{&rule, normalized.original_begin(match.begin),
                      normalized.original_end(match.end)};
    switch (rule.action) {
      case Action::kRefuse:
        if (!verdict.refused_by) verdict.refused_by = hit;  // sorted: the first one
        break;
      case Action::kMask:
        // A regular expression reports every end of a match: keep one hit per masked run.
        if (!verdict.masked.empty() && verdict.masked.back().rule == hit.rule &&
            hit.begin < verdict.masked.back().end) {
          verdict.masked.back().end = std::max(verdict.masked.back().end, hit.end);
        } else {
          verdict.masked.push_back(hit);
        }
        break;
      case Action::kFlag:
        if (!flagged[index]) verdict.flagged.push_back(hit);
        flagged[index] = true;
        break;
    }
  }
  if (verdict.refused_by) {
    verdict.decision = Decision::kRefuse;
    return verdict;
  }
  if (verdict.masked.empty()) return verdict;

  // Overlapping and adjacent masked matches merge into one masked run.
  verdict.decision = Decision::kMask;
  std::string masked;
  masked.reserve(verdict.text.size());
  std::size_t copied = 0;
  for (const RuleHit& hit : verdict.masked) {
    const std::size_t begin = std::max(hit.begin, copied);
    if (hit.end <= begin) continue;
    masked.append(verdict.text, copied, begin - copied);
    append_mask(masked, std::string_view(verdict.text).substr(begin, hit.end - begin));
    copied = hit.end;
  }
  masked.append(verdict.text, copied);
  verdict.text = std::move(masked);
  return verdict;
}

}  // namespace supportd::filter
