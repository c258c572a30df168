// Conversations in Redis and PostgreSQL, with a local journal so that neither server is
// needed to acknowledge a message.
//
//   append ──> journal (SQLite WAL, local disk)   the acknowledgement: durable on return
//          └─> Redis "session:{key}"              MessagePack, TTL, compare-and-set on seq_id
//   write-behind thread ──> PostgreSQL            every message, in seq_id order, idempotent
//
// seq_ids are assigned under a per-session lock from the journal, so they are 1, 2, 3, ...
// without gaps. With Redis down, reads and writes go on from the journal and the cache is
// rewritten when Redis returns; with PostgreSQL down, acknowledged messages wait in the
// journal and are written behind when it returns (also after a restart of this process).
// A copy older than another layer's (Redis behind PostgreSQL, this process behind a
// Redis copy another process wrote) is reloaded from the newer one. One process at a time is
// expected to write a given session (the one holding the customer's connection); two at once
// are detected through Redis and serialized.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>

#include "store/local_db.h"
#include "store/postgres_archive.h"
#include "store/redis_client.h"
#include "store/session_store.h"

namespace supportd::store {

class TieredSessionStore : public SessionStore {
 public:
  struct Options {
    std::filesystem::path journal_path;  // e.g. {data_dir}/journal.sqlite
    bool sync_every_commit = false;      // see SqliteDb::Options
    RedisClient::Options redis;
    PostgresArchive::Options postgres;
    std::chrono::milliseconds session_ttl{900'000};  // Redis expiry, renewed on every use
    std::size_t recent_messages = 100;               // kept in Redis and in the journal per session
    std::chrono::milliseconds local_retention{3'600'000};  // idle sessions leave the journal
    std::chrono::milliseconds write_behind_idle{200};      // write-behind pause when idle
    std::size_t batch_messages = 2000;  // at most this many messages per PostgreSQL transaction
  };

  // Opens the journal and starts writing behind. Redis and PostgreSQL may be down: the
  // store works from the journal and connects when they come up.
  static Result<std::unique_ptr<TieredSessionStore>> open(const Options& options);
  // Stops the write-behind thread (what is not yet written stays in the journal).
  ~TieredSessionStore() override;

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
  TieredSessionStore(const Options& options, std::unique_ptr<LocalDb> journal);

  // --- keeping the layers in step (tiered_sync.cpp); REQUIRES: the session's lock held ---
  // The journal's row for `id`, first loaded or brought up to date from Redis and PostgreSQL
  // when this process has not checked them yet. not_found / unavailable.
  Result<LocalSession> ensure_local(const SessionId& id);
  // ensure_local(), then compares with the Redis copy: adopts a newer one, rewrites an older
  // one. `cached` receives the Redis copy when it is current.
  Result<LocalSession> refresh(const SessionId& id, std::optional<SessionView>* cached);
  // The journal's view of the session: state and newest messages.
  Result<SessionView> local_view(const LocalSession& local);
  // Writes `view` to Redis unless Redis holds a newer one: a last_seq above `allowed_seq`
  // (an append passes its seq_id - 1: Redis must not have that seq_id yet) or a newer state.
  // Returns false on a conflict; marks the cache stale when Redis is unreachable.
  Result<bool> write_cache(const std::string& key, const SessionView& view,
                           std::int64_t allowed_seq, bool was_stale);
  // Writes the journal's view to Redis, adopting a newer Redis copy first if there is one.
  // True when Redis now holds it.
  bool publish(const std::string& key);
  // The Redis copy, or nullopt when absent (a corrupt copy is deleted). unavailable.
  Result<std::optional<SessionView>> read_cache(const std::string& key);
  // Adopts `remote` into the journal.
  Status adopt(const SessionView& remote);

  // --- write-behind (tiered_write_behind.cpp) ---
  void write_behind_loop();
  // One pass: PostgreSQL, then stale Redis copies, then forgetting idle sessions. True when
  // something was done.
  bool write_behind_pass();
  void wake_writer();

  std::mutex& lock_for(std::string_view key);
  bool validated(const std::string& key);
  void set_validated(const std::string& key);

  // Constant after construction.
  const Options options_;
  const std::unique_ptr<LocalDb> journal_;  // thread-safe
  RedisClient redis_;                       // thread-safe
  PostgresArchive archive_;                 // thread-safe: the write-behind thread's connection
  PostgresArchive reader_;                  // thread-safe: loads on callers' threads

  std::array<std::mutex, 64> session_locks_;  // appends and state changes of one session

  std::mutex validated_mutex_;
  std::unordered_set<std::string> validated_;  // guarded by validated_mutex_

  std::mutex writer_mutex_;
  std::condition_variable writer_wake_;    // new work for the write-behind thread
  std::condition_variable writer_passed_;  // a write-behind pass ended
  bool writer_work_ = false;               // guarded by writer_mutex_
  bool stopping_ = false;                  // guarded by writer_mutex_
  std::thread writer_;

  std::atomic<std::int64_t> cache_hits_{0};
  std::atomic<std::int64_t> cache_misses_{0};
  std::atomic<std::int64_t> cache_repairs_{0};
  std::atomic<std::int64_t> postgres_loads_{0};
  std::atomic<std::int64_t> archived_messages_{0};
  std::atomic<std::int64_t> moved_messages_{0};
};

}  // namespace supportd::store
