// The sessions file's row helpers (local_db_rows.h): a sessions row into a LocalSession, a
// range of message rows read in order, a message row inserted or replaced.
#include "store/local_db_rows.h"

#include <algorithm>

namespace supportd::store {

namespace local_db_rows {

LocalSession read_session(const SqliteStatement& row) {
  LocalSession s;
  Conversation& c = s.conversation;
  c.session = row.text(1);
  c.tenant = row.text(2);
  c.user = row.text(3);
  c.created_ms = row.int64(4);
  c.last_seq = row.int64(5);
  c.handoff = static_cast<Handoff>(std::clamp<std::int64_t>(row.int64(6), 0, 3));
  c.agent = row.text(7);
  c.handoff_ms = row.int64(8);
  s.state_version = row.int64(9);
  if (!row.is_null(10)) c.csat = static_cast<int>(row.int64(10));
  s.archived = row.int64(11) != 0;
  s.archived_version = row.int64(12);
  s.window_from = row.int64(13);
  s.cache_stale = row.int64(14) != 0;
  return s;
}

Result<std::vector<Message>> read_messages(SqliteDb& db, std::string_view key,
                                           std::int64_t from_seq, std::int64_t to_seq) {
  Result<SqliteStatement> select = db.prepare(
      "SELECT seq, role, text, created_ms, meta FROM messages WHERE key = ?1 AND seq BETWEEN ?2 "
      "AND ?3 ORDER BY seq");
  if (!select) return select.error();
  select->bind(1, key).bind(2, from_seq).bind(3, to_seq);
  std::vector<Message> messages;
  for (;;) {
    Result<bool> row = select->step();
    if (!row) return row.error();
    if (!*row) break;
    Message m;
    m.seq_id = select->int64(0);
    m.role = static_cast<Role>(std::clamp<std::int64_t>(select->int64(1), 0, 3));
    m.text = select->text(2);
    m.created_ms = select->int64(3);
    m.meta = select->text(4);
    messages.push_back(std::move(m));
  }
  return messages;
}

Status insert_message(SqliteDb& db, std::string_view key, const Message& message, bool pending) {
  Result<SqliteStatement> insert = db.prepare(
      "INSERT OR REPLACE INTO messages(key, seq, role, text, created_ms, pending, meta) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!insert) return insert.error();
  insert->bind(1, key)
      .bind(2, message.seq_id)
      .bind(3, std::int64_t{static_cast<int>(message.role)})
      .bind(4, message.text)
      .bind(5, message.created_ms)
      .bind(6, std::int64_t{pending ? 1 : 0})
      .bind(7, message.meta);
  return insert->run();
}

}  // namespace local_db_rows

}  // namespace supportd::store
