// LocalDb's appends, with group commit: a thread that finds a commit running queues its
// message; when the commit ends, the next thread in line commits everything queued at once.
#include "store/local_db.h"
#include "store/local_db_rows.h"
#include "store/sqlite_db.h"

namespace supportd::store {

struct LocalDb::QueuedAppend {
  std::string_view key;
  const NewMessage* message = nullptr;
  std::int64_t now_ms = 0;
  Result<std::int64_t> result;
  bool done = false;
};

Result<std::int64_t> LocalDb::append_untraced(std::string_view key, const NewMessage& message,
                                              std::int64_t now_ms) {
  QueuedAppend mine{key, &message, now_ms, {}, false};
  std::unique_lock lock(append_mutex_);
  append_queue_.push_back(&mine);
  while (!mine.done) {
    if (appending_) {
      append_done_.wait(lock);
      continue;
    }
    // Lead: commit everything queued so far (this one included) in one transaction.
    appending_ = true;
    std::vector<QueuedAppend*> batch;
    batch.swap(append_queue_);
    lock.unlock();
    {
      std::lock_guard writer(writer_mutex_);
      commit_appends(batch);
    }
    lock.lock();
    for (QueuedAppend* queued : batch)
      queued->done = true;
    appending_ = false;
    append_done_.notify_all();
  }
  return std::move(mine.result);
}

void LocalDb::commit_appends(const std::vector<QueuedAppend*>& batch) {
  const auto fail_all = [&](const Error& error) {
    for (QueuedAppend* queued : batch)
      queued->result = error;
  };
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return fail_all(status.error());
  Result<SqliteStatement> update = writer_->prepare(
      "UPDATE sessions SET last_seq = last_seq + 1, touched_ms = ?2, pending = max(pending, ?3) "
      "WHERE key = ?1 RETURNING last_seq");
  if (!update) return fail_all(update.error());
  for (QueuedAppend* queued : batch) {
    // A savepoint each: one append failing leaves the others in the transaction.
    if (Status status = writer_->exec("SAVEPOINT append"); !status) return fail_all(status.error());
    update->bind(1, queued->key)
        .bind(2, queued->now_ms)
        .bind(3, std::int64_t{options_.journal ? 1 : 0});
    Result<bool> row = update->step();
    Result<std::int64_t> seq = unknown_session();
    if (!row) {
      seq = row.error();
    } else if (*row) {
      seq = update->int64(0);
      if (Status done = update->run(); !done) seq = done.error();
    }
    if (seq) {
      const Message stored{*seq, queued->message->role, queued->message->text, queued->now_ms,
                           queued->message->meta};
      Status inserted =
          local_db_rows::insert_message(*writer_, queued->key, stored, options_.journal);
      if (!inserted) seq = inserted.error();
    }
    if (!seq) (void)writer_->exec("ROLLBACK TO append");
    (void)writer_->exec("RELEASE append");
    queued->result = std::move(seq);
  }
  if (Status status = transaction.commit(); !status) return fail_all(status.error());
}

Status LocalDb::retract_untraced(std::string_view key, std::int64_t seq) {
  std::lock_guard lock(writer_mutex_);
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return status;
  Result<SqliteStatement> remove = writer_->prepare(
      "DELETE FROM messages WHERE key = ?1 AND seq = ?2 AND pending = 1 "
      "AND seq = (SELECT last_seq FROM sessions WHERE key = ?1)");
  if (!remove) return remove.error();
  remove->bind(1, key).bind(2, seq);
  if (Status status = remove->run(); !status) return status;
  if (writer_->changes() == 0) return {};
  Result<SqliteStatement> update =
      writer_->prepare("UPDATE sessions SET last_seq = last_seq - 1 WHERE key = ?1");
  if (!update) return update.error();
  update->bind(1, key);
  if (Status status = update->run(); !status) return status;
  return transaction.commit();
}

}  // namespace supportd::store
