// The PostgreSQL archive of an earlier supportd (schema version 1: messages without
// metadata), in a database of its own on the shared server of scripts/test.sh: connecting
// migrates it in place, its messages read back with empty metadata, and new ones keep theirs.
#include <gtest/gtest.h>

#include <algorithm>
#include <pqxx/pqxx>

#include "store/postgres_archive.h"
#include "store_test_support.h"
#include "test_servers.h"

namespace supportd::store::testing {
namespace {

// Schema version 1 exactly as supportd created it before messages had metadata.
constexpr const char* kVersion1 = R"sql(
CREATE SCHEMA supportd;
CREATE TABLE supportd.migrations (version integer PRIMARY KEY,
                                  applied_at timestamptz NOT NULL DEFAULT now());
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
INSERT INTO supportd.migrations (version) VALUES (1);
)sql";

// A database of its own, dropped (with its connections) at the end.
class ScratchDatabase {
 public:
  explicit ScratchDatabase(std::string server) : server_(std::move(server)) {
    name_ = unique_name("supportd_v1");
    std::replace(name_.begin(), name_.end(), '-', '_');
    pqxx::connection admin(server_);
    pqxx::nontransaction(admin).exec("CREATE DATABASE " + name_);
  }
  ~ScratchDatabase() {
    try {
      pqxx::connection admin(server_);
      pqxx::nontransaction(admin).exec("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    } catch (const std::exception& e) {
      ADD_FAILURE() << "cannot drop " << name_ << ": " << e.what();
    }
  }
  // The shared server's URI ends in "/postgres": the same server, this database.
  std::string uri() const { return server_.substr(0, server_.rfind('/') + 1) + name_; }

 private:
  std::string server_;
  std::string name_;
};

TEST(PostgresSchemaTest, AnArchiveWrittenBeforeMessageMetadataIsMigratedInPlace) {
  const std::string server = required_env("SUPPORTD_TEST_POSTGRES");
  ASSERT_FALSE(server.empty());
  ScratchDatabase database(server);
  const SessionId id = *test_signer().issue("acme", "bob");
  {
    pqxx::connection old(database.uri());
    pqxx::work work(old);
    work.exec(kVersion1);
    work.exec_params(
        "INSERT INTO supportd.sessions (key, token, tenant, user_id, created_ms, last_seq) "
        "VALUES ($1, $2, 'acme', 'bob', 1700000000000, 1)",
        id.key(), id.token());
    work.exec_params(
        "INSERT INTO supportd.messages (session_key, seq_id, role, body, created_ms) "
        "VALUES ($1, 1, 1, 'an answer from before', 1700000000100)",
        id.key());
    work.commit();
  }

  PostgresArchive archive({database.uri()});
  ASSERT_TRUE(archive.connect().ok());
  Result<std::vector<Message>> before = archive.messages(id.key(), 1, 10);
  ASSERT_TRUE(before.ok()) << before.error().message;
  ASSERT_EQ(before->size(), 1u);
  EXPECT_EQ(before->at(0).text, "an answer from before");
  EXPECT_EQ(before->at(0).meta, "");

  PendingSession pending;
  pending.view.conversation.session = id.token();
  pending.view.conversation.tenant = "acme";
  pending.view.conversation.user = "bob";
  pending.view.conversation.created_ms = 1700000000000;
  const std::string meta =
      R"({"source":"faq","citations":[{"id":"faq/returns","title":"Returns"}]})";
  pending.view.recent = {{2, Role::kAssistant, "an answer with sources", 1700000000200, meta}};
  Result<std::vector<PostgresArchive::Conflict>> written = archive.write({pending});
  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_TRUE(written->empty());
  Result<std::vector<Message>> after = archive.messages(id.key(), 1, 10);
  ASSERT_TRUE(after.ok()) << after.error().message;
  ASSERT_EQ(after->size(), 2u);
  EXPECT_EQ(after->at(0).meta, "");
  EXPECT_EQ(after->at(1).meta, meta);
  Result<std::optional<SessionView>> loaded = archive.load(id.key(), 10);
  ASSERT_TRUE(loaded.ok() && loaded->has_value());
  ASSERT_EQ((*loaded)->recent.size(), 2u);
  EXPECT_EQ((*loaded)->recent.back().meta, meta);
}

}  // namespace
}  // namespace supportd::store::testing
