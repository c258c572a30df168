// What one store layer knows about a session: its conversation state and its newest
// messages. The unit the tiered store moves between the local file, Redis and PostgreSQL.
#pragma once

#include <cstdint>
#include <vector>

#include "store/session_types.h"

namespace supportd::store {

struct SessionView {
  Conversation conversation;
  // Bumped on every handoff or CSAT change: max(previous + 1, Unix ms), so that the newest
  // change wins when two copies meet.
  std::int64_t state_version = 0;
  // The newest messages, ascending and contiguous, the last one being conversation.last_seq
  // (empty when the session has none, or when only the state is known).
  std::vector<Message> recent;
};

}  // namespace supportd::store
