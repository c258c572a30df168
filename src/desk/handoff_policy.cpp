// When to call a person (see handoff_policy.h): the phrases that ask for one, in English and
// Chinese, configured topics (ASCII ones as whole words), and the low-confidence streak per
// session.
#include "desk/handoff_policy.h"

#include <algorithm>
#include <cctype>

namespace supportd::desk {
namespace {

// Phrases that ask for a person. English ones must stand as whole words.
const std::vector<std::string> kEnglishAsks = {"human",           "a person",
                                               "real person",     "live agent",
                                               "an agent",        "representative",
                                               "talk to someone", "speak to someone",
                                               "a real human",    "customer service agent",
                                               "operator",        "a colleague"};
const std::vector<std::string> kChineseAsks = {"人工",     "真人",   "转人工",
                                               "人工客服", "找客服", "客服人员"};

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// `needle` occurs in `text` with no letter or digit right before or after it.
bool contains_words(std::string_view text, std::string_view needle) {
  for (std::size_t at = text.find(needle); at != std::string_view::npos;
       at = text.find(needle, at + 1)) {
    const bool left = at == 0 || !is_word_char(text[at - 1]);
    const std::size_t end = at + needle.size();
    const bool right = end >= text.size() || !is_word_char(text[end]);
    if (left && right) return true;
  }
  return false;
}

}  // namespace

const char* handoff_reason_name(HandoffReason reason) {
  switch (reason) {
    case HandoffReason::kAsked: return "asked";
    case HandoffReason::kTopic: return "topic";
    case HandoffReason::kLowConfidence: return "low_confidence";
  }
  return "asked";
}

std::string fold(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

HandoffPolicy::HandoffPolicy(std::vector<std::string> topics, int low_confidence_turns)
    : low_confidence_turns_(low_confidence_turns) {
  for (auto& t : topics) {
    std::string folded = fold(t);
    if (!folded.empty()) topics_.push_back(std::move(folded));
  }
}

std::optional<HandoffReason> HandoffPolicy::on_question(std::string_view text) const {
  const std::string folded = fold(text);
  for (const auto& phrase : kEnglishAsks) {
    if (contains_words(folded, phrase)) return HandoffReason::kAsked;
  }
  for (const auto& phrase : kChineseAsks) {
    if (folded.find(phrase) != std::string::npos) return HandoffReason::kAsked;
  }
  for (const auto& topic : topics_) {
    const bool ascii =
        std::all_of(topic.begin(), topic.end(), [](char c) { return (c & 0x80) == 0; });
    if (ascii ? contains_words(folded, topic) : folded.find(topic) != std::string::npos) {
      return HandoffReason::kTopic;
    }
  }
  return std::nullopt;
}

bool HandoffPolicy::note_confidence(const std::string& session, bool confident) {
  if (low_confidence_turns_ <= 0 || session.empty()) return false;
  std::lock_guard lock(mutex_);
  if (confident) {
    streaks_.erase(session);
    return false;
  }
  if (streaks_.size() > 100000) streaks_.clear();  // a bound; a lost streak only delays a handoff
  if (++streaks_[session] >= low_confidence_turns_) {
    streaks_.erase(session);
    return true;
  }
  return false;
}

}  // namespace supportd::desk
