// What the sessions file (local_db.h) holds about a session beside its conversation: the row
// with the tiered store's bookkeeping, and what one write-behind pass takes from it for
// PostgreSQL (postgres_archive.h). Plain data, shared by LocalDb, its row helpers
// (local_db_rows.h) and the archive, so that none of them needs another's header.
#pragma once

#include <cstdint>
#include <vector>

#include "store/session_types.h"
#include "store/session_view.h"

namespace supportd::store {

// A session's row, with the tiered store's bookkeeping.
struct LocalSession {
  Conversation conversation;
  std::int64_t state_version = 0;
  bool archived = false;              // the session row exists in PostgreSQL
  std::int64_t archived_version = 0;  // state up to this version is in PostgreSQL
  std::int64_t window_from = 1;       // this file holds every message window_from..last_seq
  bool cache_stale = false;           // Redis missed a write: its copy must be rewritten
};

// What one write-behind pass sends to PostgreSQL for one session.
struct PendingSession {
  SessionView view;                       // state, and this process's messages not yet archived
  bool create = false;                    // the session row must be inserted
  bool state = false;                     // the state (handoff, csat) must be written
  std::vector<Feedback::Rating> ratings;  // answer votes not yet archived
  std::vector<std::int64_t> rating_ms;    // when each of `ratings` was cast
};

struct PendingCounts {
  std::int64_t sessions = 0;  // sessions with anything not yet in PostgreSQL
  std::int64_t messages = 0;  // messages not yet in PostgreSQL
  std::int64_t stale_caches = 0;
};

}  // namespace supportd::store
