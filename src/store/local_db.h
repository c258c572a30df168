// The sessions file: sessions, messages and feedback in one SQLite database (WAL). It is the
// whole store in embedded mode (SqliteSessionStore) and the local journal of the tiered store
// (TieredSessionStore), where it also records what PostgreSQL and Redis still lack.
// A write is durable when the call returns (survives a crash of the process; with
// sync_every_commit, a power loss too).
// Inside a traced request, each call a request may make is a CLIENT span (store/db_span.h,
// local_db_spans.cpp: "SELECT sessions", db.namespace the file); the write-behind's own calls
// (pending_keys, pending_for, mark_archived, move_to_end, stale_caches, forget_idle) run on its
// thread with no request, and make none.
// Thread-safety: every method may be called from any thread (one writer connection and one
// reader connection, each behind its own mutex).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/status.h"
#include "store/local_session.h"
#include "store/session_id.h"
#include "store/session_view.h"

namespace supportd::store {

class SqliteDb;

class LocalDb {
 public:
  struct Options {
    std::filesystem::path path;
    bool sync_every_commit = false;  // see SqliteDb::Options
    // Tiered mode: track what PostgreSQL lacks, and keep only the newest `window` archived
    // messages of a session. Embedded mode (false): keep everything, track nothing.
    bool journal = false;
    std::size_t window = 100;
  };

  static Result<std::unique_ptr<LocalDb>> open(const Options& options);
  ~LocalDb();

  // Records a new session with no messages.
  Status create(const SessionId& id, std::int64_t now_ms);
  // The session's row, or nullopt when this file does not know it.
  Result<std::optional<LocalSession>> find(std::string_view key);

  // Appends a message with the next seq_id and returns it. not_found: unknown session.
  // Appends from several threads share commits (group commit): one fsync serves them all
  // when sync_every_commit is on.
  Result<std::int64_t> append(std::string_view key, const NewMessage& message, std::int64_t now_ms);
  // Removes message `seq` again if it is still the newest (an append the caller never
  // acknowledged). No-op otherwise.
  Status retract(std::string_view key, std::int64_t seq);

  // Messages from_seq..to_seq (inclusive) that this file holds, ascending.
  Result<std::vector<Message>> messages(std::string_view key, std::int64_t from_seq,
                                        std::int64_t to_seq);

  // Applies a handoff change atomically (checked with check_handoff); returns the new state.
  Result<Conversation> change_handoff(std::string_view key, const HandoffChange& change,
                                      std::int64_t now_ms);
  Status set_csat(std::string_view key, int csat, std::int64_t now_ms);
  // Records a vote on message `seq`. `check_role`: the message must be here and be an answer
  // (not_found / invalid_argument otherwise); false when the caller checked elsewhere.
  Status rate_answer(std::string_view key, std::int64_t seq, Thumb thumb, bool check_role,
                     std::int64_t now_ms);
  Result<std::vector<Feedback::Rating>> ratings(std::string_view key);

  // Conversations of `tenant` waiting for a human, oldest first.
  Result<std::vector<Conversation>> waiting(std::string_view tenant, std::size_t limit);
  // Calls `visit` with the token of every session in the file.
  Status for_each_session(const std::function<void(const std::string& token)>& visit);

  // --- tiered mode -----------------------------------------------------------------------
  // Adopts a newer copy of a session (from Redis or PostgreSQL). Its messages replace the
  // local ones at the same seq_ids, except this process's own not yet archived, which stay
  // when the copy holds the same message there; when it holds another (two processes wrote
  // one seq_id while Redis was out of reach), ours move after the copy's newest, so no
  // acknowledged message is dropped. Returns how many moved.
  Result<std::int64_t> adopt(const SessionView& remote, std::int64_t now_ms);
  // Up to `limit` sessions with something to write behind.
  Result<std::vector<std::string>> pending_keys(std::size_t limit);
  // What session `key` has to write behind (at most `max_messages` messages, the oldest),
  // or nullopt when nothing.
  Result<std::optional<PendingSession>> pending_for(std::string_view key, std::size_t max_messages);
  // Records that `written` reached PostgreSQL (items changed since stay pending); trims
  // archived messages beyond the window.
  Status mark_archived(const std::vector<PendingSession>& written);
  // Moves this process's pending `message` (still at message.seq_id, unchanged) to a new
  // seq_id after both the local newest and `after_seq`: PostgreSQL holds another message at
  // its seq_id. Returns the new seq_id, or 0 when the message is no longer there.
  Result<std::int64_t> move_to_end(std::string_view key, const Message& message,
                                   std::int64_t after_seq, std::int64_t now_ms);
  // Redis missed a write of `key`: its copy must be rewritten.
  Status mark_cache_stale(std::string_view key);
  // Redis now holds the session as of `last_seq` and `state_version`: clears the stale mark
  // unless newer changes arrived meanwhile.
  Status mark_cache_current(std::string_view key, std::int64_t last_seq,
                            std::int64_t state_version);
  Result<std::vector<std::string>> stale_caches(std::size_t limit);
  Result<PendingCounts> pending_counts();
  // Forgets sessions untouched since `before_ms` that have nothing left to write behind
  // (PostgreSQL has them). Returns how many.
  Result<std::int64_t> forget_idle(std::int64_t before_ms);

 private:
  LocalDb(Options options, std::unique_ptr<SqliteDb> writer, std::unique_ptr<SqliteDb> reader,
          std::unique_ptr<SqliteDb> checkpointer);
  Result<std::optional<LocalSession>> find_locked(SqliteDb& db, std::string_view key);

  // The public calls without their spans (local_db_spans.cpp wraps each).
  Status create_untraced(const SessionId& id, std::int64_t now_ms);
  Result<std::optional<LocalSession>> find_untraced(std::string_view key);
  Result<std::int64_t> append_untraced(std::string_view key, const NewMessage& message,
                                       std::int64_t now_ms);
  Status retract_untraced(std::string_view key, std::int64_t seq);
  Result<std::vector<Message>> messages_untraced(std::string_view key, std::int64_t from_seq,
                                                 std::int64_t to_seq);
  Result<Conversation> change_handoff_untraced(std::string_view key, const HandoffChange& change,
                                               std::int64_t now_ms);
  Status set_csat_untraced(std::string_view key, int csat, std::int64_t now_ms);
  Status rate_answer_untraced(std::string_view key, std::int64_t seq, Thumb thumb, bool check_role,
                              std::int64_t now_ms);
  Result<std::vector<Feedback::Rating>> ratings_untraced(std::string_view key);
  Result<std::vector<Conversation>> waiting_untraced(std::string_view tenant, std::size_t limit);
  Status for_each_session_untraced(const std::function<void(const std::string& token)>& visit);
  Result<std::int64_t> adopt_untraced(const SessionView& remote, std::int64_t now_ms);
  Status mark_cache_stale_untraced(std::string_view key);
  Status mark_cache_current_untraced(std::string_view key, std::int64_t last_seq,
                                     std::int64_t state_version);
  Result<PendingCounts> pending_counts_untraced();
  // The session keys a `SELECT key ... LIMIT ?1` statement returns, read on the reader.
  Result<std::vector<std::string>> keys_where(const char* select_with_limit, std::size_t limit);

  void checkpoint_loop();
  struct QueuedAppend;
  // Writes `batch` in one transaction (a savepoint each), filling in every result.
  // REQUIRES: writer_mutex_ held.
  void commit_appends(const std::vector<QueuedAppend*>& batch);

  const Options options_;
  std::mutex writer_mutex_;
  std::unique_ptr<SqliteDb> writer_;  // guarded by writer_mutex_
  std::mutex reader_mutex_;
  std::unique_ptr<SqliteDb> reader_;  // guarded by reader_mutex_

  // Group commit: appends wait here while another thread commits.
  std::mutex append_mutex_;
  std::condition_variable append_done_;
  std::vector<QueuedAppend*> append_queue_;  // guarded by append_mutex_
  bool appending_ = false;                   // guarded by append_mutex_: a commit is running

  // Checkpoints run on their own connection and thread, so that no commit waits for the
  // fsync of a checkpoint.
  std::unique_ptr<SqliteDb> checkpointer_;  // used by checkpoint_thread_ only
  std::mutex checkpoint_mutex_;
  std::condition_variable checkpoint_wake_;
  bool checkpoint_due_ = false;  // guarded by checkpoint_mutex_
  bool stopping_ = false;        // guarded by checkpoint_mutex_
  std::thread checkpoint_thread_;
};

}  // namespace supportd::store
