// LocalDb's tiered-mode bookkeeping: adopting newer remote copies, and what PostgreSQL and
// Redis still lack.
#include <algorithm>

#include "store/local_db.h"
#include "store/local_db_rows.h"
#include "store/sqlite_db.h"

namespace supportd::store {

using local_db_rows::insert_message;
using local_db_rows::kSessionColumns;
using local_db_rows::read_messages;
using local_db_rows::read_session;

Result<std::int64_t> LocalDb::adopt(const SessionView& remote, std::int64_t now_ms) {
  const Conversation& c = remote.conversation;
  std::lock_guard lock(writer_mutex_);
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return status.error();
  const std::string key = session_key(c.session);
  Result<std::optional<LocalSession>> found = find_locked(*writer_, key);
  if (!found) return found.error();
  const std::int64_t remote_from =
      remote.recent.empty() ? c.last_seq + 1 : remote.recent.front().seq_id;
  std::int64_t moved = 0;

  if (!*found) {
    Result<SqliteStatement> insert = writer_->prepare(
        "INSERT INTO sessions(key, token, tenant, user_id, created_ms, last_seq, handoff, agent, "
        "handoff_ms, state_version, csat, archived, archived_seq, archived_version, window_from, "
        "touched_ms) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 1, ?6, ?10, ?12, ?13)");
    if (!insert) return insert.error();
    insert->bind(1, key)
        .bind(2, c.session)
        .bind(3, c.tenant)
        .bind(4, c.user)
        .bind(5, c.created_ms)
        .bind(6, c.last_seq)
        .bind(7, std::int64_t{static_cast<int>(c.handoff)})
        .bind(8, c.agent)
        .bind(9, c.handoff_ms)
        .bind(10, remote.state_version)
        .bind(11, c.csat ? std::optional<std::int64_t>(*c.csat) : std::nullopt)
        .bind(12, remote_from)
        .bind(13, now_ms);
    if (Status status = insert->run(); !status) return status.error();
    for (const Message& m : remote.recent) {
      if (Status status = insert_message(*writer_, key, m); !status) return status.error();
    }
    if (Status status = transaction.commit(); !status) return status.error();
    return std::int64_t{0};
  }

  const LocalSession& local = **found;
  if (c.last_seq > local.conversation.last_seq) {
    // Messages this process wrote but has not archived, and that the remote copy does not
    // know: move them after the remote ones.
    Result<std::vector<Message>> mine =
        read_messages(*writer_, key, local.archived_seq + 1, local.conversation.last_seq);
    if (!mine) return mine.error();
    const bool contiguous = remote_from <= local.archived_seq + 1;
    Result<SqliteStatement> remove = writer_->prepare(
        "DELETE FROM messages WHERE key = ?1 AND (seq > ?2 OR seq < ?3)");
    if (!remove) return remove.error();
    remove->bind(1, key).bind(2, local.archived_seq).bind(3, contiguous ? 0 : remote_from);
    if (Status status = remove->run(); !status) return status.error();
    for (const Message& m : remote.recent) {
      if (Status status = insert_message(*writer_, key, m); !status) return status.error();
    }
    std::int64_t last = c.last_seq;
    for (Message m : *mine) {
      m.seq_id = ++last;
      if (Status status = insert_message(*writer_, key, m); !status) return status.error();
      ++moved;
    }
    Result<SqliteStatement> update = writer_->prepare(
        "UPDATE sessions SET last_seq = ?2, archived_seq = ?3, window_from = ?4, touched_ms = ?5, "
        "pending = (pending OR ?6), cache_stale = (cache_stale OR ?6) WHERE key = ?1");
    if (!update) return update.error();
    update->bind(1, key)
        .bind(2, last)
        .bind(3, c.last_seq)
        .bind(4, contiguous ? std::min(local.window_from, remote_from) : remote_from)
        .bind(5, now_ms)
        .bind(6, std::int64_t{moved > 0 ? 1 : 0});
    if (Status status = update->run(); !status) return status.error();
  }
  if (remote.state_version > local.state_version) {
    Result<SqliteStatement> update = writer_->prepare(
        "UPDATE sessions SET handoff = ?2, agent = ?3, handoff_ms = ?4, csat = ?5, "
        "state_version = ?6, archived_version = max(archived_version, ?6) WHERE key = ?1");
    if (!update) return update.error();
    update->bind(1, key)
        .bind(2, std::int64_t{static_cast<int>(c.handoff)})
        .bind(3, c.agent)
        .bind(4, c.handoff_ms)
        .bind(5, c.csat ? std::optional<std::int64_t>(*c.csat) : std::nullopt)
        .bind(6, remote.state_version);
    if (Status status = update->run(); !status) return status.error();
  }
  if (Status status = transaction.commit(); !status) return status.error();
  return moved;
}

Result<std::vector<PendingSession>> LocalDb::pending(std::size_t max_sessions,
                                                      std::size_t max_messages) {
  std::lock_guard lock(reader_mutex_);
  std::vector<LocalSession> sessions;
  {
    Result<SqliteStatement> select = reader_->prepare(
        std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE pending = 1 LIMIT ?1");
    if (!select) return select.error();
    select->bind(1, static_cast<std::int64_t>(max_sessions));
    for (;;) {
      Result<bool> row = select->step();
      if (!row) return row.error();
      if (!*row) break;
      sessions.push_back(read_session(*select));
    }
  }
  std::vector<PendingSession> batch;
  std::size_t budget = max_messages;
  for (LocalSession& local : sessions) {
    if (budget == 0) break;
    const std::string key = session_key(local.conversation.session);
    PendingSession p;
    p.create = !local.archived;
    p.state = local.state_version > local.archived_version;
    const std::int64_t to =
        std::min(local.conversation.last_seq,
                 local.archived_seq + static_cast<std::int64_t>(budget));
    Result<std::vector<Message>> messages =
        read_messages(*reader_, key, local.archived_seq + 1, to);
    if (!messages) return messages.error();
    budget -= std::min(budget, messages->size());
    p.view.recent = std::move(*messages);
    Result<SqliteStatement> ratings = reader_->prepare(
        "SELECT seq, thumb, rated_ms FROM answer_ratings WHERE key = ?1 AND archived = 0 "
        "ORDER BY seq");
    if (!ratings) return ratings.error();
    ratings->bind(1, key);
    for (;;) {
      Result<bool> row = ratings->step();
      if (!row) return row.error();
      if (!*row) break;
      p.ratings.push_back({ratings->int64(0), ratings->int64(1) != 0 ? Thumb::kUp : Thumb::kDown});
      p.rating_ms.push_back(ratings->int64(2));
    }
    p.view.conversation = std::move(local.conversation);
    p.view.state_version = local.state_version;
    batch.push_back(std::move(p));
  }
  return batch;
}

Status LocalDb::mark_archived(const std::vector<PendingSession>& written) {
  std::lock_guard lock(writer_mutex_);
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return status;
  for (const PendingSession& p : written) {
    const Conversation& c = p.view.conversation;
    const std::string key = session_key(c.session);
    Result<SqliteStatement> update = writer_->prepare(
        "UPDATE sessions SET archived = 1, archived_seq = max(archived_seq, ?2), "
        "archived_version = max(archived_version, ?3) WHERE key = ?1");
    if (!update) return update.error();
    update->bind(1, key)
        .bind(2, p.view.recent.empty() ? 0 : p.view.recent.back().seq_id)
        .bind(3, p.state ? p.view.state_version : 0);
    if (Status status = update->run(); !status) return status;
    for (std::size_t i = 0; i < p.ratings.size(); ++i) {
      Result<SqliteStatement> rated = writer_->prepare(
          "UPDATE answer_ratings SET archived = 1 WHERE key = ?1 AND seq = ?2 AND rated_ms = ?3 "
          "AND thumb = ?4");
      if (!rated) return rated.error();
      rated->bind(1, key)
          .bind(2, p.ratings[i].seq_id)
          .bind(3, p.rating_ms[i])
          .bind(4, std::int64_t{static_cast<int>(p.ratings[i].thumb)});
      if (Status status = rated->run(); !status) return status;
    }
    Result<SqliteStatement> recompute = writer_->prepare(
        "UPDATE sessions SET pending = (archived = 0 OR archived_seq < last_seq OR "
        "archived_version < state_version OR EXISTS(SELECT 1 FROM answer_ratings r "
        "WHERE r.key = ?1 AND r.archived = 0)) WHERE key = ?1");
    if (!recompute) return recompute.error();
    recompute->bind(1, key);
    if (Status status = recompute->run(); !status) return status;
    if (options_.window > 0) {
      // Keep the newest `window` messages; older ones are in PostgreSQL.
      Result<SqliteStatement> trim = writer_->prepare(
          "DELETE FROM messages WHERE key = ?1 AND seq < (SELECT min(archived_seq + 1, "
          "last_seq - ?2 + 1) FROM sessions WHERE key = ?1)");
      if (!trim) return trim.error();
      trim->bind(1, key).bind(2, static_cast<std::int64_t>(options_.window));
      if (Status status = trim->run(); !status) return status;
      Result<SqliteStatement> window = writer_->prepare(
          "UPDATE sessions SET window_from = max(window_from, min(archived_seq + 1, "
          "last_seq - ?2 + 1)) WHERE key = ?1");
      if (!window) return window.error();
      window->bind(1, key).bind(2, static_cast<std::int64_t>(options_.window));
      if (Status status = window->run(); !status) return status;
    }
  }
  return transaction.commit();
}

Status LocalDb::mark_cache_stale(std::string_view key) {
  std::lock_guard lock(writer_mutex_);
  Result<SqliteStatement> update =
      writer_->prepare("UPDATE sessions SET cache_stale = 1 WHERE key = ?1");
  if (!update) return update.error();
  update->bind(1, key);
  return update->run();
}

Status LocalDb::mark_cache_current(std::string_view key, std::int64_t last_seq,
                                   std::int64_t state_version) {
  std::lock_guard lock(writer_mutex_);
  Result<SqliteStatement> update = writer_->prepare(
      "UPDATE sessions SET cache_stale = 0 WHERE key = ?1 AND cache_stale = 1 AND last_seq <= ?2 "
      "AND state_version <= ?3");
  if (!update) return update.error();
  update->bind(1, key).bind(2, last_seq).bind(3, state_version);
  return update->run();
}

Result<std::vector<std::string>> LocalDb::stale_caches(std::size_t limit) {
  std::lock_guard lock(reader_mutex_);
  Result<SqliteStatement> select =
      reader_->prepare("SELECT key FROM sessions WHERE cache_stale = 1 LIMIT ?1");
  if (!select) return select.error();
  select->bind(1, static_cast<std::int64_t>(limit));
  std::vector<std::string> keys;
  for (;;) {
    Result<bool> row = select->step();
    if (!row) return row.error();
    if (!*row) return keys;
    keys.push_back(select->text(0));
  }
}

Result<PendingCounts> LocalDb::pending_counts() {
  std::lock_guard lock(reader_mutex_);
  PendingCounts counts;
  Result<SqliteStatement> pending = reader_->prepare(
      "SELECT count(*), coalesce(sum(last_seq - archived_seq), 0) FROM sessions "
      "WHERE pending = 1");
  if (!pending) return pending.error();
  Result<bool> row = pending->step();
  if (!row) return row.error();
  counts.sessions = pending->int64(0);
  counts.messages = pending->int64(1);
  Result<SqliteStatement> stale =
      reader_->prepare("SELECT count(*) FROM sessions WHERE cache_stale = 1");
  if (!stale) return stale.error();
  row = stale->step();
  if (!row) return row.error();
  counts.stale_caches = stale->int64(0);
  return counts;
}

Result<std::int64_t> LocalDb::forget_idle(std::int64_t before_ms) {
  std::lock_guard lock(writer_mutex_);
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return status.error();
  static constexpr const char* kIdle =
      "(SELECT key FROM sessions WHERE touched_ms < ?1 AND pending = 0 AND cache_stale = 0)";
  for (const std::string& sql :
       {std::string("DELETE FROM messages WHERE key IN ") + kIdle,
        std::string("DELETE FROM answer_ratings WHERE key IN ") + kIdle}) {
    Result<SqliteStatement> remove = writer_->prepare(sql);
    if (!remove) return remove.error();
    remove->bind(1, before_ms);
    if (Status status = remove->run(); !status) return status.error();
  }
  Result<SqliteStatement> remove = writer_->prepare(
      "DELETE FROM sessions WHERE touched_ms < ?1 AND pending = 0 AND cache_stale = 0");
  if (!remove) return remove.error();
  remove->bind(1, before_ms);
  if (Status status = remove->run(); !status) return status.error();
  const std::int64_t forgotten = writer_->changes();
  if (Status status = transaction.commit(); !status) return status.error();
  return forgotten;
}

}  // namespace supportd::store
