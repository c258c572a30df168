// The embedded default: every conversation in one SQLite file (WAL) in the data directory.
// Nothing acknowledged is lost when the process restarts (with sync_every_commit, not even on
// a power loss). No other server needed.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <filesystem>
#include <memory>

#include "store/session_store.h"

namespace supportd::store {

class LocalDb;

class SqliteSessionStore : public SessionStore {
 public:
  struct Options {
    std::filesystem::path path;      // e.g. {data_dir}/sessions.sqlite
    bool sync_every_commit = false;  // fsync every commit (power-loss safe, ~4 ms each here)
  };

  // Opens or creates the file. io/corrupt errors when it cannot be used.
  static Result<std::unique_ptr<SqliteSessionStore>> open(const Options& options);
  ~SqliteSessionStore() override;

  Result<Conversation> create(const SessionId& id) override;
  Result<std::int64_t> append(const SessionId& id, const NewMessage& message) override;
  Result<std::vector<Message>> history(const SessionId& id, std::size_t limit,
                                       std::int64_t before_seq = 0) override;
  Result<Conversation> conversation(const SessionId& id) override;
  Result<Conversation> change_handoff(const SessionId& id, const HandoffChange& change) override;
  Status rate_answer(const SessionId& id, std::int64_t seq_id, Thumb thumb) override;
  Status rate_conversation(const SessionId& id, int csat) override;
  Result<Feedback> feedback(const SessionId& id) override;
  Result<WaitingList> waiting_for_human(std::string_view tenant, std::size_t limit) override;
  Status for_each_session(const std::function<void(const std::string&)>& visit) override;
  Status flush(std::chrono::milliseconds timeout) override;
  StoreStats stats() override;

 private:
  explicit SqliteSessionStore(std::unique_ptr<LocalDb> db);

  std::unique_ptr<LocalDb> db_;
};

}  // namespace supportd::store
