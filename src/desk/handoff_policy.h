// When the bot should hand a conversation to a person: the customer asks for one (in English or
// Chinese), the question touches a configured topic, or confidence stays low for several turns.
// Thread-safety: const methods may be called from any thread; note_confidence is thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace supportd::desk {

enum class HandoffReason { kAsked, kTopic, kLowConfidence };
const char* handoff_reason_name(HandoffReason reason);

class HandoffPolicy {
 public:
  HandoffPolicy(std::vector<std::string> topics, int low_confidence_turns);

  // Asks for a person ("can I talk to a human", "转人工"), or names a configured topic.
  std::optional<HandoffReason> on_question(std::string_view text) const;

  // Records whether this session's last answer was confident; true when it has now been
  // unconfident `low_confidence_turns` times in a row (and resets the count).
  bool note_confidence(const std::string& session, bool confident);

 private:
  std::vector<std::string> topics_;  // case-folded
  const int low_confidence_turns_;
  std::mutex mutex_;
  std::unordered_map<std::string, int> streaks_;  // guarded by mutex_; bounded
};

// ASCII case folding plus whitespace collapsing (CJK text passes through unchanged).
std::string fold(std::string_view text);

}  // namespace supportd::desk
