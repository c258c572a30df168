// Where conversations are kept: the seam between the desk and storage, with two real
// implementations: SqliteSessionStore (embedded default, one SQLite file) and
// TieredSessionStore (Redis cache + PostgreSQL write-behind + a local journal).
// Ids reaching a store have been verified (SessionId); the desk goes through Sessions
// (sessions.h), which checks every id it is handed before a store sees it.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/session_id.h"
#include "store/session_types.h"

namespace supportd::store {

// Counters and gauges a store exposes (the desk turns them into metrics).
struct StoreStats {
  const char* backend = "";            // "sqlite" or "tiered"
  bool redis_up = true;                // tiered: the last Redis call succeeded
  bool postgres_up = true;             // tiered: the last PostgreSQL call succeeded
  std::int64_t pending_messages = 0;   // acknowledged, not yet in PostgreSQL
  std::int64_t pending_sessions = 0;   // sessions with anything not yet in PostgreSQL
  std::int64_t stale_caches = 0;       // sessions whose Redis copy must be rewritten
  std::int64_t cache_hits = 0;         // reads answered by a current Redis copy
  std::int64_t cache_misses = 0;       // reads that found no Redis copy
  std::int64_t cache_repairs = 0;      // Redis copies older than the truth, rewritten
  std::int64_t postgres_loads = 0;     // sessions or history read from PostgreSQL
  std::int64_t archived_messages = 0;  // messages written behind to PostgreSQL since start
  std::int64_t moved_messages = 0;     // local messages renumbered after a newer remote copy
  std::int64_t redis_errors = 0;
  std::int64_t postgres_errors = 0;
};

class SessionStore {
 public:
  virtual ~SessionStore() = default;

  // Records a new conversation for `id`, which SessionSigner::issue just made.
  virtual Result<Conversation> create(const SessionId& id) = 0;

  // Appends a message and returns its seq_id (the session's previous last_seq + 1).
  // Success is the acknowledgement: from then on the message is never lost, whatever
  // happens to Redis, PostgreSQL or this process. Errors: invalid_argument/too_large (bad
  // message), not_found (unknown session), io/unavailable (nothing was stored).
  virtual Result<std::int64_t> append(const SessionId& id, const NewMessage& message) = 0;

  // The newest `limit` messages (0: all) with seq_id < `before_seq` (0: no bound), in
  // ascending seq_id order. not_found: unknown session.
  virtual Result<std::vector<Message>> history(const SessionId& id, std::size_t limit,
                                               std::int64_t before_seq = 0) = 0;

  // The conversation's state (last_seq, handoff, csat).
  virtual Result<Conversation> conversation(const SessionId& id) = 0;

  // Applies a handoff transition atomically and returns the new state. invalid_argument names
  // a forbidden transition or a mismatched `expected` state (another agent took it first).
  virtual Result<Conversation> change_handoff(const SessionId& id, const HandoffChange& change) = 0;

  // Thumbs up/down on the answer with `seq_id` (an assistant message); the last vote wins.
  // not_found: no such message; invalid_argument: it is not an answer.
  virtual Status rate_answer(const SessionId& id, std::int64_t seq_id, Thumb thumb) = 0;
  // The customer's 1..5 satisfaction score for the conversation; the last score wins.
  virtual Status rate_conversation(const SessionId& id, int csat) = 0;
  virtual Result<Feedback> feedback(const SessionId& id) = 0;

  // Conversations of `tenant` waiting for a human, oldest first, at most `limit` (and at
  // most kMaxWaitingListed).
  virtual Result<WaitingList> waiting_for_human(std::string_view tenant, std::size_t limit) = 0;

  // Calls `visit` with every session id the store holds (to rebuild the Bloom filter).
  // unavailable when part of the store cannot be read now; `visit` may have been called.
  virtual Status for_each_session(const std::function<void(const std::string&)>& visit) = 0;

  // Waits up to `timeout` until every acknowledged write has reached the durable backend
  // (PostgreSQL) and the cache is current; unavailable if that did not happen in time.
  // The embedded store returns at once.
  virtual Status flush(std::chrono::milliseconds timeout) = 0;

  virtual StoreStats stats() = 0;
};

}  // namespace supportd::store
