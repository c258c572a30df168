// The embedded SQLite store: the contract suite, WAL mode, clear errors for a file that is not a
// database and an unwritable directory, sync_every_commit, migration of files without metadata.
#include "store/sqlite_session_store.h"

#include <gtest/gtest.h>

#include <fstream>

#include "session_store_contract.h"
#include "version1_sqlite_file.h"

namespace supportd::store::testing {
namespace {

std::unique_ptr<SessionStore> open_sqlite(const std::filesystem::path& dir) {
  Result<std::unique_ptr<SqliteSessionStore>> store =
      SqliteSessionStore::open({dir / "sessions.sqlite", false});
  EXPECT_TRUE(store.ok()) << store.error().message;
  return store.ok() ? std::move(*store) : nullptr;
}

INSTANTIATE_TEST_SUITE_P(Sqlite, SessionStoreContract,
                         ::testing::Values(StoreFactory{"sqlite", open_sqlite}), contract_name);

TEST(SqliteSessionStoreTest, TheFileIsInWalMode) {
  TempDir dir;
  auto store = open_sqlite(dir.path());
  SessionId id = *test_signer().issue("acme", "bob");
  ASSERT_TRUE(store->create(id).ok());
  ASSERT_TRUE(store->append(id, {Role::kUser, "hello"}).ok());
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "sessions.sqlite-wal"));
}

TEST(SqliteSessionStoreTest, AFileThatIsNotADatabaseIsAClearError) {
  TempDir dir;
  std::ofstream(dir.path() / "sessions.sqlite") << std::string(8192, 'x');
  Result<std::unique_ptr<SqliteSessionStore>> store =
      SqliteSessionStore::open({dir.path() / "sessions.sqlite", false});
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find("sessions.sqlite"), std::string::npos)
      << store.error().message;
}

TEST(SqliteSessionStoreTest, AnUnwritableDirectoryIsAClearError) {
  Result<std::unique_ptr<SqliteSessionStore>> store =
      SqliteSessionStore::open({"/proc/supportd-no-such-dir/sessions.sqlite", false});
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.error().code, ErrorCode::kIo);
}

TEST(SqliteSessionStoreTest, SyncEveryCommitAlsoWorks) {
  TempDir dir;
  Result<std::unique_ptr<SqliteSessionStore>> store =
      SqliteSessionStore::open({dir.path() / "sessions.sqlite", true});
  ASSERT_TRUE(store.ok());
  SessionId id = *test_signer().issue("acme", "bob");
  ASSERT_TRUE((*store)->create(id).ok());
  EXPECT_EQ(*(*store)->append(id, {Role::kUser, "durable"}), 1);
}

// A file written before messages had metadata gets the column on open: its messages read
// back unchanged (without metadata), and new ones keep theirs, also after a restart.
TEST(SqliteSessionStoreTest, AFileWrittenBeforeMessageMetadataIsMigrated) {
  TempDir dir;
  const SessionId id = *test_signer().issue("acme", "bob");
  write_version1_file(dir.path() / "sessions.sqlite", id, /*pending=*/false);
  const std::string meta = R"({"source":"kb"})";
  for (int restart = 0; restart < 2; ++restart) {
    auto store = open_sqlite(dir.path());
    ASSERT_NE(store, nullptr);
    if (restart == 0) {
      ASSERT_EQ(*store->append(id, {Role::kAssistant, "new", meta}), 3);
    }
    Result<std::vector<Message>> all = store->history(id, 0);
    ASSERT_TRUE(all.ok()) << all.error().message;
    ASSERT_EQ(all->size(), 3u);
    EXPECT_EQ(all->at(0).text, "Where is my parcel?");
    EXPECT_EQ(all->at(0).meta, "");
    EXPECT_EQ(all->at(1).text, "Use the tracking link.");
    EXPECT_EQ(all->at(1).role, Role::kAssistant);
    EXPECT_EQ(all->at(1).created_ms, 1700000000200);
    EXPECT_EQ(all->at(1).meta, "");
    EXPECT_EQ(all->at(2).meta, meta);
  }
}

}  // namespace
}  // namespace supportd::store::testing
