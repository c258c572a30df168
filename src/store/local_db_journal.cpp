// LocalDb's tiered-mode bookkeeping: adopting newer remote copies, and what PostgreSQL and
// Redis still lack.
#include <algorithm>
#include <unordered_map>

#include "store/local_db.h"
#include "store/local_db_rows.h"
#include "store/sqlite_db.h"

namespace supportd::store {

using local_db_rows::insert_message;

namespace {

// Whether two copies of a seq_id are one message. The metadata is written with the text, so
// it is not compared: a copy archived before messages had metadata is still the same message.
bool same_message(const Message& a, const Message& b) {
  return a.role == b.role && a.text == b.text && a.created_ms == b.created_ms;
}

Result<std::vector<Message>> pending_messages(SqliteDb& db, std::string_view key,
                                              std::size_t limit) {
  Result<SqliteStatement> select = db.prepare(
      "SELECT seq, role, text, created_ms, meta FROM messages WHERE key = ?1 AND pending = 1 "
      "ORDER BY seq LIMIT ?2");
  if (!select) return select.error();
  select->bind(1, key).bind(2, static_cast<std::int64_t>(limit));
  std::vector<Message> messages;
  for (;;) {
    Result<bool> row = select->step();
    if (!row) return row.error();
    if (!*row) return messages;
    messages.push_back({select->int64(0),
                        static_cast<Role>(std::clamp<std::int64_t>(select->int64(1), 0, 3)),
                        select->text(2), select->int64(3), select->text(4)});
  }
}

}  // namespace

Result<std::int64_t> LocalDb::adopt_untraced(const SessionView& remote, std::int64_t now_ms) {
  const Conversation& c = remote.conversation;
  const std::string key = session_key(c.session);
  std::lock_guard lock(writer_mutex_);
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return status.error();
  Result<std::optional<LocalSession>> found = find_locked(*writer_, key);
  if (!found) return found.error();
  const std::int64_t remote_from =
      remote.recent.empty() ? c.last_seq + 1 : remote.recent.front().seq_id;

  if (!*found) {
    Result<SqliteStatement> insert = writer_->prepare(
        "INSERT INTO sessions(key, token, tenant, user_id, created_ms, last_seq, handoff, agent, "
        "handoff_ms, state_version, csat, archived, archived_version, window_from, touched_ms) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 1, ?10, ?12, ?13)");
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
      if (Status status = insert_message(*writer_, key, m, false); !status) return status.error();
    }
    if (Status status = transaction.commit(); !status) return status.error();
    return std::int64_t{0};
  }

  const LocalSession& local = **found;
  std::int64_t moved = 0;
  if (c.last_seq > local.conversation.last_seq) {
    // Our messages not yet archived: those the copy holds too stay ours to write behind;
    // those whose seq_id the copy gives to another message move after the copy's newest.
    Result<std::vector<Message>> mine = pending_messages(*writer_, key, 1'000'000);
    if (!mine) return mine.error();
    std::vector<Message> moving;
    std::unordered_map<std::int64_t, const Message*> theirs;
    for (const Message& m : remote.recent)
      theirs[m.seq_id] = &m;
    for (const Message& m : *mine) {
      auto it = theirs.find(m.seq_id);
      if (it != theirs.end() && !same_message(m, *it->second)) moving.push_back(m);
    }
    Result<SqliteStatement> remove =
        writer_->prepare("DELETE FROM messages WHERE key = ?1 AND seq = ?2");
    if (!remove) return remove.error();
    for (const Message& m : moving) {
      remove->bind(1, key).bind(2, m.seq_id);
      if (Status status = remove->run(); !status) return status.error();
    }
    const bool contiguous = remote_from <= local.conversation.last_seq + 1;
    if (!contiguous) {
      Result<SqliteStatement> stray =
          writer_->prepare("DELETE FROM messages WHERE key = ?1 AND seq < ?2 AND pending = 0");
      if (!stray) return stray.error();
      stray->bind(1, key).bind(2, remote_from);
      if (Status status = stray->run(); !status) return status.error();
    }
    Result<SqliteStatement> upsert = writer_->prepare(
        "INSERT INTO messages(key, seq, role, text, created_ms, pending, meta) "
        "VALUES(?1, ?2, ?3, ?4, ?5, 0, ?6) ON CONFLICT(key, seq) DO UPDATE SET "
        "role = excluded.role, text = excluded.text, created_ms = excluded.created_ms, "
        // A copy without metadata (from a process older than it) leaves the same message's.
        "meta = CASE WHEN excluded.meta = '' AND messages.text = excluded.text AND "
        "messages.created_ms = excluded.created_ms THEN messages.meta ELSE excluded.meta END");
    if (!upsert) return upsert.error();
    for (const Message& m : remote.recent) {
      upsert->bind(1, key)
          .bind(2, m.seq_id)
          .bind(3, std::int64_t{static_cast<int>(m.role)})
          .bind(4, m.text)
          .bind(5, m.created_ms)
          .bind(6, m.meta);
      if (Status status = upsert->run(); !status) return status.error();
    }
    std::int64_t last = c.last_seq;
    for (Message m : moving) {
      m.seq_id = ++last;
      if (Status status = insert_message(*writer_, key, m, true); !status) return status.error();
      ++moved;
    }
    Result<SqliteStatement> update = writer_->prepare(
        "UPDATE sessions SET last_seq = ?2, window_from = ?3, touched_ms = ?4, "
        "pending = (pending OR ?5), cache_stale = (cache_stale OR ?5) WHERE key = ?1");
    if (!update) return update.error();
    update->bind(1, key)
        .bind(2, last)
        .bind(3, contiguous ? std::min(local.window_from, remote_from) : remote_from)
        .bind(4, now_ms)
        .bind(5, std::int64_t{moved > 0 ? 1 : 0});
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

Result<std::vector<std::string>> LocalDb::keys_where(const char* select_with_limit,
                                                     std::size_t limit) {
  std::lock_guard lock(reader_mutex_);
  Result<SqliteStatement> select = reader_->prepare(select_with_limit);
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

Result<std::vector<std::string>> LocalDb::pending_keys(std::size_t limit) {
  return keys_where("SELECT key FROM sessions WHERE pending = 1 LIMIT ?1", limit);
}

Result<std::optional<PendingSession>> LocalDb::pending_for(std::string_view key,
                                                           std::size_t max_messages) {
  std::lock_guard lock(reader_mutex_);
  Result<std::optional<LocalSession>> found = find_locked(*reader_, key);
  if (!found) return found.error();
  if (!*found) return std::optional<PendingSession>();
  LocalSession& local = **found;
  PendingSession p;
  p.create = !local.archived;
  p.state = local.state_version > local.archived_version;
  Result<std::vector<Message>> messages = pending_messages(*reader_, key, max_messages);
  if (!messages) return messages.error();
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
  return std::optional<PendingSession>(std::move(p));
}

Status LocalDb::mark_archived(const std::vector<PendingSession>& written) {
  std::lock_guard lock(writer_mutex_);
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return status;
  for (const PendingSession& p : written) {
    const std::string key = session_key(p.view.conversation.session);
    Result<SqliteStatement> update = writer_->prepare(
        "UPDATE sessions SET archived = 1, archived_version = max(archived_version, ?2) "
        "WHERE key = ?1");
    if (!update) return update.error();
    update->bind(1, key).bind(2, p.state ? p.view.state_version : 0);
    if (Status status = update->run(); !status) return status;
    // Only the very messages written: one moved meanwhile stays pending at its new seq_id.
    Result<SqliteStatement> message = writer_->prepare(
        "UPDATE messages SET pending = 0 WHERE key = ?1 AND seq = ?2 AND created_ms = ?3 "
        "AND text = ?4");
    if (!message) return message.error();
    for (const Message& m : p.view.recent) {
      message->bind(1, key).bind(2, m.seq_id).bind(3, m.created_ms).bind(4, m.text);
      if (Status status = message->run(); !status) return status;
    }
    Result<SqliteStatement> rated = writer_->prepare(
        "UPDATE answer_ratings SET archived = 1 WHERE key = ?1 AND seq = ?2 AND rated_ms = ?3 "
        "AND thumb = ?4");
    if (!rated) return rated.error();
    for (std::size_t i = 0; i < p.ratings.size(); ++i) {
      rated->bind(1, key)
          .bind(2, p.ratings[i].seq_id)
          .bind(3, p.rating_ms[i])
          .bind(4, std::int64_t{static_cast<int>(p.ratings[i].thumb)});
      if (Status status = rated->run(); !status) return status;
    }
    Result<SqliteStatement> recompute = writer_->prepare(
        "UPDATE sessions SET pending = (archived = 0 OR archived_version < state_version OR "
        "EXISTS(SELECT 1 FROM messages m WHERE m.key = ?1 AND m.pending = 1) OR "
        "EXISTS(SELECT 1 FROM answer_ratings r WHERE r.key = ?1 AND r.archived = 0)) "
        "WHERE key = ?1");
    if (!recompute) return recompute.error();
    recompute->bind(1, key);
    if (Status status = recompute->run(); !status) return status;
    if (options_.window > 0) {
      // Keep the newest `window` messages; older archived ones are in PostgreSQL.
      Result<SqliteStatement> trim = writer_->prepare(
          "DELETE FROM messages WHERE key = ?1 AND pending = 0 AND "
          "seq < (SELECT last_seq - ?2 + 1 FROM sessions WHERE key = ?1)");
      if (!trim) return trim.error();
      trim->bind(1, key).bind(2, static_cast<std::int64_t>(options_.window));
      if (Status status = trim->run(); !status) return status;
      Result<SqliteStatement> window = writer_->prepare(
          "UPDATE sessions SET window_from = max(window_from, last_seq - ?2 + 1) WHERE key = ?1");
      if (!window) return window.error();
      window->bind(1, key).bind(2, static_cast<std::int64_t>(options_.window));
      if (Status status = window->run(); !status) return status;
    }
  }
  return transaction.commit();
}

Result<std::int64_t> LocalDb::move_to_end(std::string_view key, const Message& message,
                                          std::int64_t after_seq, std::int64_t now_ms) {
  std::lock_guard lock(writer_mutex_);
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return status.error();
  Result<SqliteStatement> remove = writer_->prepare(
      "DELETE FROM messages WHERE key = ?1 AND seq = ?2 AND pending = 1 AND created_ms = ?3 "
      "AND text = ?4");
  if (!remove) return remove.error();
  remove->bind(1, key).bind(2, message.seq_id).bind(3, message.created_ms).bind(4, message.text);
  if (Status status = remove->run(); !status) return status.error();
  if (writer_->changes() == 0) return std::int64_t{0};
  Result<SqliteStatement> update = writer_->prepare(
      "UPDATE sessions SET last_seq = max(last_seq, ?2) + 1, "
      "window_from = CASE WHEN ?2 > last_seq THEN ?2 + 1 ELSE window_from END, "
      "pending = 1, cache_stale = 1, touched_ms = ?3 WHERE key = ?1 RETURNING last_seq");
  if (!update) return update.error();
  update->bind(1, key).bind(2, after_seq).bind(3, now_ms);
  Result<bool> row = update->step();
  if (!row) return row.error();
  if (!*row) return unknown_session();
  Message moved = message;
  moved.seq_id = update->int64(0);
  if (Status status = update->run(); !status) return status.error();
  if (Status status = insert_message(*writer_, key, moved, true); !status) return status.error();
  if (Status status = transaction.commit(); !status) return status.error();
  return moved.seq_id;
}

Status LocalDb::mark_cache_stale_untraced(std::string_view key) {
  std::lock_guard lock(writer_mutex_);
  Result<SqliteStatement> update =
      writer_->prepare("UPDATE sessions SET cache_stale = 1 WHERE key = ?1");
  if (!update) return update.error();
  update->bind(1, key);
  return update->run();
}

Status LocalDb::mark_cache_current_untraced(std::string_view key, std::int64_t last_seq,
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
  return keys_where("SELECT key FROM sessions WHERE cache_stale = 1 LIMIT ?1", limit);
}

Result<PendingCounts> LocalDb::pending_counts_untraced() {
  std::lock_guard lock(reader_mutex_);
  PendingCounts counts;
  Result<SqliteStatement> pending = reader_->prepare(
      "SELECT (SELECT count(*) FROM sessions WHERE pending = 1), "
      "(SELECT count(*) FROM messages WHERE pending = 1)");
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
  for (const std::string& sql : {std::string("DELETE FROM messages WHERE key IN ") + kIdle,
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
