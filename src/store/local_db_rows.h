// Internal to local_db*.cpp: how a sessions row is selected and read, and how a message row
// is read and written, on whichever of LocalDb's connections the caller holds.
// Thread-safety: as the SqliteDb passed in (its owner holds the connection's mutex).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/local_session.h"
#include "store/session_types.h"
#include "store/sqlite_db.h"

namespace supportd::store::local_db_rows {

// The columns read_session() expects, in order.
inline constexpr const char* kSessionColumns =
    "key, token, tenant, user_id, created_ms, last_seq, handoff, agent, handoff_ms, "
    "state_version, csat, archived, archived_version, window_from, cache_stale";

LocalSession read_session(const SqliteStatement& row);

// Messages of `key` from_seq..to_seq, ascending.
Result<std::vector<Message>> read_messages(SqliteDb& db, std::string_view key,
                                           std::int64_t from_seq, std::int64_t to_seq);

// Inserts or replaces message (key, message.seq_id); `pending`: to be written behind.
Status insert_message(SqliteDb& db, std::string_view key, const Message& message, bool pending);

}  // namespace supportd::store::local_db_rows
