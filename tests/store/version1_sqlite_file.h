// A sessions file (or tiered journal) exactly as supportd wrote it before messages had
// metadata (schema version 1: no messages.meta column), for the migration tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "store/session_id.h"
#include "store/sqlite_db.h"

namespace supportd::store::testing {

inline constexpr const char* kVersion1Schema = R"sql(
CREATE TABLE IF NOT EXISTS sessions(
  key TEXT PRIMARY KEY,
  token TEXT NOT NULL,
  tenant TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  last_seq INTEGER NOT NULL DEFAULT 0,
  handoff INTEGER NOT NULL DEFAULT 0,
  agent TEXT NOT NULL DEFAULT '',
  handoff_ms INTEGER NOT NULL DEFAULT 0,
  state_version INTEGER NOT NULL DEFAULT 0,
  csat INTEGER,
  archived INTEGER NOT NULL DEFAULT 0,
  archived_version INTEGER NOT NULL DEFAULT 0,
  window_from INTEGER NOT NULL DEFAULT 1,
  cache_stale INTEGER NOT NULL DEFAULT 0,
  pending INTEGER NOT NULL DEFAULT 0,
  touched_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_waiting ON sessions(tenant, handoff_ms) WHERE handoff = 1;
CREATE INDEX IF NOT EXISTS sessions_pending ON sessions(key) WHERE pending = 1;
CREATE INDEX IF NOT EXISTS sessions_cache_stale ON sessions(key) WHERE cache_stale = 1;
CREATE INDEX IF NOT EXISTS sessions_touched ON sessions(touched_ms);
CREATE TABLE IF NOT EXISTS messages(
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  role INTEGER NOT NULL,
  text TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  pending INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(key, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS messages_pending ON messages(key, seq) WHERE pending = 1;
CREATE TABLE IF NOT EXISTS answer_ratings(
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  thumb INTEGER NOT NULL,
  rated_ms INTEGER NOT NULL,
  archived INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(key, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS answer_ratings_pending ON answer_ratings(key) WHERE archived = 0;
PRAGMA user_version = 1;
)sql";

// Writes `path` in schema version 1 with session `id` holding two messages: 1 from the
// customer, 2 an answer. `pending`: as a tiered journal whose session and messages have not
// reached PostgreSQL yet; otherwise as the embedded store's file.
inline void write_version1_file(const std::filesystem::path& path, const SessionId& id,
                                bool pending) {
  Result<std::unique_ptr<SqliteDb>> db = SqliteDb::open(path, {});
  ASSERT_TRUE(db.ok()) << db.error().message;
  ASSERT_TRUE((*db)->exec(kVersion1Schema).ok());
  Result<SqliteStatement> session = (*db)->prepare(
      "INSERT INTO sessions(key, token, tenant, user_id, created_ms, last_seq, pending, "
      "touched_ms) VALUES(?1, ?2, ?3, ?4, 1700000000000, 2, ?5, 1700000000000)");
  ASSERT_TRUE(session.ok());
  session->bind(1, id.key())
      .bind(2, id.token())
      .bind(3, id.tenant())
      .bind(4, id.user())
      .bind(5, std::int64_t{pending ? 1 : 0});
  ASSERT_TRUE(session->run().ok());
  Result<SqliteStatement> message = (*db)->prepare(
      "INSERT INTO messages(key, seq, role, text, created_ms, pending) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
  ASSERT_TRUE(message.ok());
  message->bind(1, id.key())
      .bind(2, std::int64_t{1})
      .bind(3, std::int64_t{0})
      .bind(4, "Where is my parcel?")
      .bind(5, std::int64_t{1700000000100})
      .bind(6, std::int64_t{pending ? 1 : 0});
  ASSERT_TRUE(message->run().ok());
  message->bind(1, id.key())
      .bind(2, std::int64_t{2})
      .bind(3, std::int64_t{1})
      .bind(4, "Use the tracking link.")
      .bind(5, std::int64_t{1700000000200})
      .bind(6, std::int64_t{pending ? 1 : 0});
  ASSERT_TRUE(message->run().ok());
}

}  // namespace supportd::store::testing
