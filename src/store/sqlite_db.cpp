// The SQLite layer (sqlite_db.h): the connection opened in WAL mode, statements prepared once and
// cached, binding, stepping and reading columns, transactions, errors as Status.
#include "store/sqlite_db.h"

#include <sqlite3.h>

namespace supportd::store {

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), statement_(other.statement_), bind_error_(other.bind_error_) {
  other.statement_ = nullptr;
}

SqliteStatement::~SqliteStatement() {
  if (statement_ == nullptr) return;
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(statement_, index, value);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  const int rc = sqlite3_bind_text64(statement_, index, text.data(), text.size(), SQLITE_TRANSIENT,
                                     SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::optional<std::int64_t> value) {
  if (value) return bind(index, *value);
  const int rc = sqlite3_bind_null(statement_, index);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Result<bool> SqliteStatement::step() {
  if (bind_error_ != 0) {
    return Error::make(ErrorCode::kInternal,
                       std::string("sqlite bind: ") + sqlite3_errstr(bind_error_));
  }
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  // Done or failed: reset, so that the statement can be bound and run again.
  Error error = rc == SQLITE_DONE ? Error{} : db_->error("sqlite step");
  sqlite3_reset(statement_);
  if (rc == SQLITE_DONE) return false;
  return error;
}

Status SqliteStatement::run() {
  for (;;) {
    Result<bool> row = step();
    if (!row) return row.error();
    if (!*row) return {};
  }
}

std::int64_t SqliteStatement::int64(int column) const {
  return sqlite3_column_int64(statement_, column);
}

std::string SqliteStatement::text(int column) const {
  const auto* data = sqlite3_column_text(statement_, column);
  const int size = sqlite3_column_bytes(statement_, column);
  if (data == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
}

bool SqliteStatement::is_null(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::open(const std::filesystem::path& path,
                                                 const Options& options) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  sqlite3* handle = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &handle, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = "cannot open " + path.string() + ": " +
                          (handle ? sqlite3_errmsg(handle) : sqlite3_errstr(rc));
    sqlite3_close(handle);
    return Error::make(ErrorCode::kIo, std::move(message));
  }
  std::unique_ptr<SqliteDb> db(new SqliteDb(handle));
  sqlite3_busy_timeout(handle, static_cast<int>(options.busy_timeout.count()));
  const std::string pragmas = std::string("PRAGMA journal_mode=WAL; PRAGMA synchronous=") +
                              (options.sync_every_commit ? "FULL" : "NORMAL") +
                              "; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;" +
                              (options.auto_checkpoint ? "" : " PRAGMA wal_autocheckpoint=0;");
  if (Status status = db->exec(pragmas); !status) {
    return Error::make(status.error().code,
                       "cannot use " + path.string() + ": " + status.error().message);
  }
  Result<SqliteStatement> mode = db->prepare("PRAGMA journal_mode");
  if (!mode) return mode.error();
  Result<bool> row = mode->step();
  if (!row || !*row || mode->text(0) != "wal") {
    return Error::make(ErrorCode::kIo, "cannot switch " + path.string() + " to WAL mode");
  }
  return db;
}

SqliteDb::~SqliteDb() {
  for (auto& [sql, statement] : statements_)
    sqlite3_finalize(statement);
  sqlite3_close(handle_);
}

Status SqliteDb::exec(std::string_view sql) {
  char* message = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(handle_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    Error error = this->error("sqlite");
    if (message) {
      error.message = std::string("sqlite: ") + message;
      sqlite3_free(message);
    }
    return error;
  }
  return {};
}

Result<SqliteStatement> SqliteDb::prepare(const std::string& sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v3(handle_, sql.c_str(), static_cast<int>(sql.size()),
                           SQLITE_PREPARE_PERSISTENT, &statement, nullptr) != SQLITE_OK) {
      return error("sqlite prepare");
    }
    it = statements_.emplace(sql, statement).first;
  }
  return SqliteStatement(this, it->second);
}

Status SqliteDb::checkpoint() {
  int log = 0;
  int copied = 0;
  if (sqlite3_wal_checkpoint_v2(handle_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, &copied) !=
      SQLITE_OK) {
    return error("sqlite checkpoint");
  }
  return {};
}

void SqliteDb::on_commit(std::function<void(int pages)> pages) {
  on_commit_ = std::move(pages);
  sqlite3_wal_hook(
      handle_,
      [](void* self, sqlite3*, const char*, int pages) {
        static_cast<SqliteDb*>(self)->on_commit_(pages);
        return SQLITE_OK;
      },
      this);
}

Status SqliteDb::begin() {
  return exec("BEGIN IMMEDIATE");
}

Status SqliteDb::commit() {
  return exec("COMMIT");
}

void SqliteDb::rollback() {
  (void)exec("ROLLBACK");
}

std::int64_t SqliteDb::changes() const {
  return sqlite3_changes64(handle_);
}

Error SqliteDb::error(std::string_view what) const {
  const int code = sqlite3_extended_errcode(handle_);
  const int primary = code & 0xff;
  ErrorCode error_code = ErrorCode::kIo;
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) error_code = ErrorCode::kCorrupt;
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) error_code = ErrorCode::kUnavailable;
  if (primary == SQLITE_CONSTRAINT || primary == SQLITE_MISUSE || primary == SQLITE_RANGE ||
      primary == SQLITE_ERROR)
    error_code = ErrorCode::kInternal;
  return Error::make(error_code, std::string(what) + ": " + sqlite3_errmsg(handle_));
}

}  // namespace supportd::store
