// The router's route history on disk (see route_history.h).
#include "store/route_history.h"

#include <algorithm>

#include "store/sqlite_db.h"

namespace supportd::store {

Result<std::unique_ptr<RouteHistory>> RouteHistory::open(const std::filesystem::path& path) {
  auto db = SqliteDb::open(path, SqliteDb::Options{});
  if (!db) return db.error();
  if (Status created = (*db)->exec(
          "CREATE TABLE IF NOT EXISTS route_changes("
          "seq INTEGER PRIMARY KEY AUTOINCREMENT, deployment TEXT NOT NULL, action TEXT NOT NULL, "
          "before TEXT NOT NULL, after TEXT NOT NULL, who TEXT NOT NULL, unix_ms INTEGER NOT "
          "NULL)");
      !created) {
    return Error::make(created.error().code, path.string() + ": cannot create the route history: " +
                                                 created.error().message);
  }
  return std::unique_ptr<RouteHistory>(new RouteHistory(std::move(db).value()));
}

RouteHistory::RouteHistory(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}

RouteHistory::~RouteHistory() = default;

Status RouteHistory::append(const RouteRecord& record) {
  std::lock_guard lock(mutex_);
  Result<SqliteStatement> insert = db_->prepare(
      "INSERT INTO route_changes(deployment, action, before, after, who, unix_ms) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6)");
  if (!insert) return insert.error();
  insert->bind(1, record.deployment)
      .bind(2, record.action)
      .bind(3, record.before)
      .bind(4, record.after)
      .bind(5, record.who)
      .bind(6, record.unix_ms);
  return insert->run();
}

Result<std::vector<RouteRecord>> RouteHistory::recent(std::size_t limit) {
  std::lock_guard lock(mutex_);
  Result<SqliteStatement> select = db_->prepare(
      "SELECT deployment, action, before, after, who, unix_ms FROM route_changes "
      "ORDER BY seq DESC LIMIT ?1");
  if (!select) return select.error();
  select->bind(1, static_cast<std::int64_t>(limit));
  std::vector<RouteRecord> records;
  for (;;) {
    Result<bool> row = select->step();
    if (!row) return row.error();
    if (!*row) break;
    records.push_back(RouteRecord{select->text(0), select->text(1), select->text(2),
                                  select->text(3), select->text(4), select->int64(5)});
  }
  std::reverse(records.begin(), records.end());
  return records;
}

}  // namespace supportd::store
