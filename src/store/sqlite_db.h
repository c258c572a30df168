// A small RAII layer over one SQLite connection: WAL mode, cached prepared statements,
// transactions, errors as Status. Keeps sqlite3.h out of every other header.
// Thread-safety: none; one thread at a time per SqliteDb (callers hold a mutex).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace supportd::store {

class SqliteDb;

// A prepared statement borrowed from SqliteDb's cache; reset (bindings cleared) when it goes
// out of scope. Indexes are 1-based for bind and 0-based for columns, as in SQLite.
class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  ~SqliteStatement();

  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, std::optional<std::int64_t> value);  // nullopt binds NULL

  // Advances to the next row: true when a row is available, false when done. After done or
  // an error the statement is reset: it may be bound and stepped again.
  Result<bool> step();
  // Steps to the end, for statements that return no rows.
  Status run();

  std::int64_t int64(int column) const;
  std::string text(int column) const;
  bool is_null(int column) const;

 private:
  friend class SqliteDb;
  SqliteStatement(SqliteDb* db, sqlite3_stmt* statement) : db_(db), statement_(statement) {}

  SqliteDb* db_;
  sqlite3_stmt* statement_;
  int bind_error_ = 0;
};

class SqliteDb {
 public:
  struct Options {
    // false: synchronous=NORMAL, a commit survives a crash of the process (not of the machine);
    // true: synchronous=FULL, every commit is fsynced and survives a power loss.
    bool sync_every_commit = false;
    std::chrono::milliseconds busy_timeout{5000};
    // false: commits never checkpoint the WAL themselves (and never wait for its fsync);
    // the owner calls checkpoint() from another connection instead.
    bool auto_checkpoint = true;
  };

  // Opens or creates the database at `path` in WAL mode.
  static Result<std::unique_ptr<SqliteDb>> open(const std::filesystem::path& path,
                                                const Options& options);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs SQL without parameters (several statements allowed).
  Status exec(std::string_view sql);
  // The statement for `sql`, prepared once and cached.
  Result<SqliteStatement> prepare(const std::string& sql);

  // BEGIN IMMEDIATE / COMMIT / ROLLBACK.
  Status begin();
  Status commit();
  void rollback();

  // Copies committed WAL pages into the database without blocking writers (PASSIVE).
  Status checkpoint();
  // Calls `pages(n)` after every commit on this connection with the WAL's size in pages.
  // `pages` runs inside the commit: it must be quick and must not use this connection.
  void on_commit(std::function<void(int pages)> pages);

  // Rows changed by the last INSERT/UPDATE/DELETE.
  std::int64_t changes() const;
  // An error for the connection's last failure, with `what` in front.
  Error error(std::string_view what) const;

 private:
  explicit SqliteDb(sqlite3* handle) : handle_(handle) {}

  sqlite3* handle_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
  std::function<void(int)> on_commit_;
};

// Rolls back unless commit() succeeded.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteDb& db) : db_(db) {}
  ~SqliteTransaction() {
    if (begun_ && !committed_) db_.rollback();
  }
  Status begin() {
    Status status = db_.begin();
    begun_ = status.ok();
    return status;
  }
  Status commit() {
    Status status = db_.commit();
    committed_ = status.ok();
    return status;
  }

 private:
  SqliteDb& db_;
  bool begun_ = false;
  bool committed_ = false;
};

}  // namespace supportd::store
