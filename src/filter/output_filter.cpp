// The streaming output filter (see output_filter.h): the held-back tail, stream-mode scans, masks
// applied and the cut before a refuse rule's match.
#include "filter/output_filter.h"

#include <algorithm>

#include "filter/compiled_rules.h"

namespace supportd::filter {
namespace {

bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

OutputFilter::OutputFilter(std::shared_ptr<const RuleSet> rules) : rules_(std::move(rules)) {
  const CompiledRules& compiled = *rules_->compiled_;
  if (compiled.output.database != nullptr)
    stream_ = std::make_unique<PatternStream>(*compiled.output.database);
  flagged_.assign(compiled.rules.size(), false);
}

OutputFilter::~OutputFilter() = default;

std::string OutputFilter::push(std::string_view piece) {
  if (stopped() || finished_) return {};
  std::string valid = utf8_.push(piece);
  if (stream_ == nullptr) {
    emitted_original_ += valid.size();
    return valid;
  }
  original_.append(valid);
  normalized_.append(valid, false);
  return advance(false);
}

std::string OutputFilter::finish() {
  if (stopped() || finished_) return {};
  finished_ = true;
  std::string valid = utf8_.finish();
  if (stream_ == nullptr) {
    emitted_original_ += valid.size();
    return valid;
  }
  original_.append(valid);
  normalized_.append(valid, true);
  return advance(true);
}

std::optional<std::string> filter_whole(std::shared_ptr<const RuleSet> rules, std::string text) {
  if (!rules->filters_output() && is_valid_utf8(text)) return text;
  OutputFilter filter(std::move(rules));
  std::string safe = filter.push(text);
  safe += filter.finish();
  if (filter.stopped()) return std::nullopt;
  return safe;
}

std::vector<RuleHit> OutputFilter::take_flags() {
  std::vector<RuleHit> flags;
  flags.swap(flags_);
  return flags;
}

std::string OutputFilter::advance(bool final) {
  const std::size_t end = normalized_.end();
  std::vector<PatternMatch> matches;
  if (scanned_ < end) {
    stream_->scan(std::string_view(normalized_.text()).substr(scanned_ - normalized_.base()),
                  matches);
    scanned_ = end;
  }
  if (final) stream_->close(matches);

  // Word matches that waited for their next character are decided first, then the new ones.
  std::vector<PatternMatch> candidates;
  candidates.swap(waiting_);
  candidates.insert(candidates.end(), matches.begin(), matches.end());
  std::optional<Span> refused;
  for (const PatternMatch& match : candidates)
    resolve(match, final, refused);

  // Mask spans as a sorted union: a cut never lands inside one.
  std::sort(masks_.begin(), masks_.end(),
            [](const Span& a, const Span& b) { return a.begin < b.begin; });
  std::vector<Span> merged;
  for (const Span& span : masks_) {
    if (!merged.empty() && span.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, span.end);
    } else {
      merged.push_back(span);
    }
  }
  masks_.swap(merged);

  // Emit up to the refused match, or up to what no rule can still match.
  std::size_t cut = refused ? refused->begin : (final ? end : hold_back(end));
  for (const PatternMatch& match : waiting_)
    cut = std::min(cut, match.begin);
  for (std::size_t previous = cut + 1; cut != previous;) {
    previous = cut;
    for (const Span& span : masks_)
      if (span.begin < cut && cut < span.end) cut = span.begin;
    cut = normalized_.cut_point(std::max(cut, emitted_));
  }
  if (!refused) return emit(cut);

  stopped_by_ = RuleHit{refused->rule, normalized_.original_begin(refused->begin),
                        normalized_.original_end(refused->end)};
  std::string out = emit(cut);
  stream_.reset();
  waiting_.clear();
  masks_.clear();
  original_.clear();
  return out;
}

void OutputFilter::resolve(const PatternMatch& match, bool final, std::optional<Span>& refused) {
  const CompiledRules& compiled = *rules_->compiled_;
  const std::size_t index = compiled.output.rule_of_pattern[match.pattern];
  const Rule& rule = compiled.rules[index];
  if (rule.kind == RuleKind::kWord) {
    const CompiledRule& word = compiled.compiled[index];
    if (word.boundary_after && match.end >= normalized_.end() && !final) {
      waiting_.push_back(match);
      return;
    }
    const std::size_t base = normalized_.base();
    if (!word_boundaries_hold(word, normalized_.text(), match.begin - base, match.end - base))
      return;
  }
  // Holding back guarantees matches start at or after the emission point; clamp regardless.
  const Span span{std::max(match.begin, emitted_), match.end, &rule};
  if (span.end <= span.begin) return;
  switch (rule.action) {
    case Action::kRefuse:
      if (!refused || span.begin < refused->begin) refused = span;
      break;
    case Action::kMask: masks_.push_back(span); break;
    case Action::kFlag:
      if (!flagged_[index]) {
        flagged_[index] = true;
        flags_.push_back(
            {&rule, normalized_.original_begin(span.begin), normalized_.original_end(span.end)});
      }
      break;
  }
}

std::size_t OutputFilter::hold_back(std::size_t end) const {
  const CompiledRules& compiled = *rules_->compiled_;
  const std::size_t available = end - emitted_;
  // A regular expression's match ending later starts within its longest width of the end.
  std::size_t hold = compiled.longest_output_regex > 0 ? compiled.longest_output_regex - 1 : 0;
  // A word's: exactly where the text's tail is one of its prefixes.
  const std::string_view text = normalized_.text();
  const std::size_t base = normalized_.base();
  for (std::size_t n = std::min(compiled.longest_output_word, available); n > hold; --n) {
    const std::size_t at = end - n - base;
    if (is_continuation_byte(text[at])) continue;
    if (compiled.output_word_prefixes.contains(text.substr(at, n))) {
      hold = n;
      break;
    }
  }
  return end - std::min(hold, available);
}

std::string OutputFilter::emit(std::size_t cut) {
  const std::size_t original_cut = normalized_.original_cut(cut);
  std::string out;
  out.reserve(original_cut - emitted_original_);
  std::size_t copied = emitted_original_;
  auto span = masks_.begin();
  for (; span != masks_.end() && span->begin < cut; ++span) {
    const std::size_t begin = std::max(normalized_.original_begin(span->begin), copied);
    const std::size_t end = std::min(normalized_.original_end(span->end), original_cut);
    if (end <= begin) continue;
    out.append(original_, copied - emitted_original_, begin - copied);
    append_mask(out, std::string_view(original_).substr(begin - emitted_original_, end - begin));
    copied = end;
  }
  masks_.erase(masks_.begin(), span);
  out.append(original_, copied - emitted_original_, original_cut - copied);
  original_.erase(0, original_cut - emitted_original_);
  emitted_original_ = original_cut;
  emitted_ = cut;

  // Keep the character before the emission point: word boundaries look at it.
  std::size_t keep = cut;
  const std::string& text = normalized_.text();
  if (keep > normalized_.base()) --keep;
  while (keep > normalized_.base() && is_continuation_byte(text[keep - normalized_.base()]))
    --keep;
  normalized_.discard_before(keep);
  return out;
}

}  // namespace supportd::filter
