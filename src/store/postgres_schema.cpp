// The PostgreSQL schema (postgres_schema.h): the migrations in order, applied once each under an
// advisory lock.
#include "store/postgres_schema.h"

#include <iterator>
#include <pqxx/pqxx>
#include <string>

namespace supportd::store {
namespace {

// Applied in order, each once; never edit one that has shipped: add the next.
constexpr const char* kMigrations[] = {
    // 1: sessions, messages, answer ratings.
    R"sql(
CREATE TABLE supportd.sessions (
  key text PRIMARY KEY,
  token text NOT NULL,
  tenant text NOT NULL,
  user_id text NOT NULL,
  created_ms bigint NOT NULL,
  last_seq bigint NOT NULL DEFAULT 0,
  handoff smallint NOT NULL DEFAULT 0,
  agent text NOT NULL DEFAULT '',
  handoff_ms bigint NOT NULL DEFAULT 0,
  state_version bigint NOT NULL DEFAULT 0,
  csat smallint CHECK (csat BETWEEN 1 AND 5)
);
CREATE INDEX sessions_waiting ON supportd.sessions (tenant, handoff_ms) WHERE handoff = 1;
CREATE TABLE supportd.messages (
  session_key text NOT NULL,
  seq_id bigint NOT NULL CHECK (seq_id > 0),
  role smallint NOT NULL,
  body text NOT NULL,
  created_ms bigint NOT NULL,
  PRIMARY KEY (session_key, seq_id)
);
CREATE TABLE supportd.answer_ratings (
  session_key text NOT NULL,
  seq_id bigint NOT NULL,
  thumb smallint NOT NULL,
  rated_ms bigint NOT NULL,
  PRIMARY KEY (session_key, seq_id)
);
)sql",
    // 2: a message's metadata (Message::meta); rows archived before it have ''.
    R"sql(
ALTER TABLE supportd.messages ADD COLUMN IF NOT EXISTS meta text NOT NULL DEFAULT '';
)sql",
};

constexpr long long kMigrationLock = 0x5e55104d;  // pg_advisory_xact_lock key

}  // namespace

void migrate_schema(pqxx::connection_base& db) {
  pqxx::work work(db);
  work.exec("SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLock) + ")");
  work.exec(
      "CREATE SCHEMA IF NOT EXISTS supportd; "
      "CREATE TABLE IF NOT EXISTS supportd.migrations (version integer PRIMARY KEY, "
      "applied_at timestamptz NOT NULL DEFAULT now())");
  const int current =
      work.exec("SELECT coalesce(max(version), 0) FROM supportd.migrations")[0][0].as<int>();
  const int newest = static_cast<int>(std::size(kMigrations));
  if (current > newest) {
    throw SchemaTooNew("the PostgreSQL schema is at version " + std::to_string(current) +
                       ", newer than this supportd knows (" + std::to_string(newest) + ")");
  }
  for (int version = current + 1; version <= newest; ++version) {
    work.exec(kMigrations[version - 1]);
    work.exec("INSERT INTO supportd.migrations (version) VALUES (" + std::to_string(version) + ")");
  }
  work.commit();
}

}  // namespace supportd::store
