// The model router's route history kept on disk (a SQLite file in the data directory,
// routes.sqlite), so that who changed which deployment's split, and when, survives a restart
// (GET /admin/routes). Plain rows: the splits are text the router writes and reads
// (engine/router/split.h, encode_split); this store knows nothing of models.
// Thread-safety: every method may be called from any thread (one mutex around the
// connection).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"

namespace supportd::store {

class SqliteDb;

struct RouteRecord {
  std::string deployment;
  std::string action;  // "set", "rollback"
  std::string before;  // the split, as encode_split writes it ("" : none)
  std::string after;
  std::string who;
  std::int64_t unix_ms = 0;
};

class RouteHistory {
 public:
  // Opens or creates the file (and its table). Errors: kIo / kCorrupt naming the file.
  static Result<std::unique_ptr<RouteHistory>> open(const std::filesystem::path& path);
  ~RouteHistory();
  RouteHistory(const RouteHistory&) = delete;
  RouteHistory& operator=(const RouteHistory&) = delete;

  // Appends one change, committed (it survives a crash of the process) before returning.
  Status append(const RouteRecord& record);
  // The last `limit` changes, oldest first.
  Result<std::vector<RouteRecord>> recent(std::size_t limit);

 private:
  explicit RouteHistory(std::unique_ptr<SqliteDb> db);

  std::mutex mutex_;
  std::unique_ptr<SqliteDb> db_;  // guarded by mutex_
};

}  // namespace supportd::store
