// Filters a generated answer as it streams: text passes through as soon as no rule can still
// match it, masked where mask rules matched; a refuse rule stops the stream before its match,
// even when the match spans chunks. Hold-back is bounded by the longest match a rule that
// applies to output can have (RuleSet::longest_output_match()), and follows the text: a tail
// that is not the beginning of any word is released at once. Output is always valid UTF-8 cut
// on character boundaries. Not thread-safe; one per answer.
//
// Typical use, for each piece of generated text:
//   std::string safe = filter.push(piece);  // send `safe` (may be empty)
//   if (filter.stopped()) { send rules->notice(); cancel the generation; }
// and at the end of generation: send filter.finish(), then the same stopped() check.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/utf8.h"
#include "filter/pattern_database.h"
#include "filter/rule.h"
#include "filter/rule_set.h"
#include "filter/text_normalizer.h"

namespace supportd::filter {

class OutputFilter {
 public:
  explicit OutputFilter(std::shared_ptr<const RuleSet> rules);
  ~OutputFilter();
  OutputFilter(const OutputFilter&) = delete;
  OutputFilter& operator=(const OutputFilter&) = delete;

  // Appends a piece of generated text (any bytes: a character split across pieces waits for
  // its rest, ill-formed bytes become U+FFFD). Returns the text now safe to emit. When a
  // refuse rule matched, returns the text before the match and stopped() turns true; after
  // that, returns "" for every piece.
  std::string push(std::string_view piece);

  // The generation ended: returns everything still held back (masked), or the text before a
  // refused match found at the very end (then stopped() is true). Call once.
  std::string finish();

  // True once a refuse rule matched: the caller ends the stream with RuleSet::notice().
  bool stopped() const { return stopped_by_.has_value(); }
  // The refusing match; offsets count the bytes fed so far (ill-formed bytes as U+FFFD).
  const std::optional<RuleHit>& stopped_by() const { return stopped_by_; }

  // Flag rules matched since the last call, each rule once per answer.
  std::vector<RuleHit> take_flags();

  // Bytes received and not yet returned.
  std::size_t held_bytes() const { return original_.size() + utf8_.pending(); }

 private:
  // A match being decided: word matches wait for the character after them; mask spans wait
  // until the emission point passes them.
  struct Span {
    std::size_t begin = 0;  // normalized offsets
    std::size_t end = 0;
    const Rule* rule = nullptr;
  };

  std::string advance(bool final);
  void resolve(const PatternMatch& match, bool final, std::optional<Span>& refused);
  std::size_t hold_back(std::size_t end) const;
  std::string emit(std::size_t cut);

  // Constant after construction.
  std::shared_ptr<const RuleSet> rules_;

  Utf8Stream utf8_;
  NormalizedText normalized_;
  std::unique_ptr<PatternStream> stream_;  // null when no rule applies to output
  std::size_t scanned_ = 0;                // normalized bytes given to stream_
  std::string original_;                   // received text from emitted_original_ on
  std::size_t emitted_original_ = 0;       // original bytes returned so far
  std::size_t emitted_ = 0;                // normalized offset of the emission point
  std::vector<PatternMatch> waiting_;      // word matches waiting for their next character
  std::vector<Span> masks_;                // confirmed mask spans not yet emitted
  std::vector<bool> flagged_;              // per rule: reported already
  std::vector<RuleHit> flags_;             // not yet taken
  std::optional<RuleHit> stopped_by_;
  bool finished_ = false;
};

// Filters a whole text given at once (an answer kept from before, served again): the text
// masked where mask rules matched, or nullopt when a refuse rule matched anywhere in it. Valid
// UTF-8 that no rule applies to (`rules` has none for output) is returned as it came, not copied.
std::optional<std::string> filter_whole(std::shared_ptr<const RuleSet> rules, std::string text);

}  // namespace supportd::filter
