// The sessions file (local_db.h): its schema and migration, opening the writer, reader and
// checkpoint connections, and the conversation calls (create, find, messages, handoff, feedback,
// waiting list). Appends are in local_db_append.cpp, the tiered bookkeeping in
// local_db_journal.cpp.
#include "store/local_db.h"

#include <algorithm>

#include "store/local_db_rows.h"
#include "store/sqlite_db.h"

namespace supportd::store {
namespace {

// 1: sessions, messages, answer ratings. 2: messages.meta (added to version-1 files on open).
constexpr int kSchemaVersion = 2;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS sessions(
  key TEXT PRIMARY KEY,
  token TEXT NOT NULL,
  tenant TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  last_seq INTEGER NOT NULL DEFAULT 0,
  handoff INTEGER NOT NULL DEFAULT 0,
  agent TEXT NOT NULL DEFAULT '',
  handoff_ms INTEGER NOT NULL DEFAULT 0,
  state_version INTEGER NOT NULL DEFAULT 0,
  csat INTEGER,
  archived INTEGER NOT NULL DEFAULT 0,
  archived_version INTEGER NOT NULL DEFAULT 0,
  window_from INTEGER NOT NULL DEFAULT 1,
  cache_stale INTEGER NOT NULL DEFAULT 0,
  pending INTEGER NOT NULL DEFAULT 0,
  touched_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_waiting ON sessions(tenant, handoff_ms) WHERE handoff = 1;
CREATE INDEX IF NOT EXISTS sessions_pending ON sessions(key) WHERE pending = 1;
CREATE INDEX IF NOT EXISTS sessions_cache_stale ON sessions(key) WHERE cache_stale = 1;
CREATE INDEX IF NOT EXISTS sessions_touched ON sessions(touched_ms);
CREATE TABLE IF NOT EXISTS messages(
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  role INTEGER NOT NULL,
  text TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  pending INTEGER NOT NULL DEFAULT 0,
  meta TEXT NOT NULL DEFAULT '',
  PRIMARY KEY(key, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS messages_pending ON messages(key, seq) WHERE pending = 1;
CREATE TABLE IF NOT EXISTS answer_ratings(
  key TEXT NOT NULL,
  seq INTEGER NOT NULL,
  thumb INTEGER NOT NULL,
  rated_ms INTEGER NOT NULL,
  archived INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(key, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS answer_ratings_pending ON answer_ratings(key) WHERE archived = 0;
)sql";

// Brings a file written before messages had metadata (schema 1) up to date: such a file's
// messages table lacks the column, which CREATE TABLE IF NOT EXISTS does not add.
Status add_message_meta(SqliteDb& db) {
  Result<SqliteStatement> columns =
      db.prepare("SELECT 1 FROM pragma_table_info('messages') WHERE name = 'meta'");
  if (!columns) return columns.error();
  Result<bool> found = columns->step();
  if (!found) return found.error();
  if (*found) return {};
  return db.exec("ALTER TABLE messages ADD COLUMN meta TEXT NOT NULL DEFAULT ''");
}

}  // namespace

using local_db_rows::kSessionColumns;
using local_db_rows::read_session;

LocalDb::LocalDb(Options options, std::unique_ptr<SqliteDb> writer,
                 std::unique_ptr<SqliteDb> reader, std::unique_ptr<SqliteDb> checkpointer)
    : options_(std::move(options)),
      writer_(std::move(writer)),
      reader_(std::move(reader)),
      checkpointer_(std::move(checkpointer)) {
  constexpr int kCheckpointPages = 1000;  // SQLite's own default threshold
  writer_->on_commit([this](int pages) {
    if (pages < kCheckpointPages) return;
    {
      std::lock_guard lock(checkpoint_mutex_);
      checkpoint_due_ = true;
    }
    checkpoint_wake_.notify_one();
  });
  checkpoint_thread_ = std::thread([this] { checkpoint_loop(); });
}

LocalDb::~LocalDb() {
  {
    std::lock_guard lock(checkpoint_mutex_);
    stopping_ = true;
  }
  checkpoint_wake_.notify_one();
  checkpoint_thread_.join();
}

void LocalDb::checkpoint_loop() {
  std::unique_lock lock(checkpoint_mutex_);
  for (;;) {
    checkpoint_wake_.wait(lock, [&] { return stopping_ || checkpoint_due_; });
    if (stopping_) return;
    checkpoint_due_ = false;
    lock.unlock();
    (void)checkpointer_->checkpoint();  // a failure is retried at the next threshold
    lock.lock();
  }
}

Result<std::unique_ptr<LocalDb>> LocalDb::open(const Options& options) {
  SqliteDb::Options sqlite;
  sqlite.sync_every_commit = options.sync_every_commit;
  sqlite.auto_checkpoint = false;
  Result<std::unique_ptr<SqliteDb>> writer = SqliteDb::open(options.path, sqlite);
  if (!writer) return writer.error();
  {
    Result<SqliteStatement> version = (*writer)->prepare("PRAGMA user_version");
    if (!version) return version.error();
    Result<bool> row = version->step();
    if (!row) return row.error();
    const std::int64_t found = *row ? version->int64(0) : 0;
    if (found > kSchemaVersion) {
      return Error::make(ErrorCode::kUnsupported, options.path.string() +
                                                      " was written by a newer supportd (schema " +
                                                      std::to_string(found) + ")");
    }
  }
  {
    SqliteTransaction transaction(**writer);
    if (Status status = transaction.begin(); !status) return status.error();
    if (Status status = (*writer)->exec(kSchema); !status) return status.error();
    if (Status status = add_message_meta(**writer); !status) return status.error();
    if (Status status =
            (*writer)->exec("PRAGMA user_version = " + std::to_string(kSchemaVersion) + ";");
        !status) {
      return status.error();
    }
    if (Status status = transaction.commit(); !status) return status.error();
  }
  Result<std::unique_ptr<SqliteDb>> reader = SqliteDb::open(options.path, sqlite);
  if (!reader) return reader.error();
  Result<std::unique_ptr<SqliteDb>> checkpointer = SqliteDb::open(options.path, sqlite);
  if (!checkpointer) return checkpointer.error();
  return std::unique_ptr<LocalDb>(
      new LocalDb(options, std::move(*writer), std::move(*reader), std::move(*checkpointer)));
}

Result<std::optional<LocalSession>> LocalDb::find_locked(SqliteDb& db, std::string_view key) {
  Result<SqliteStatement> select =
      db.prepare(std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE key = ?1");
  if (!select) return select.error();
  select->bind(1, key);
  Result<bool> row = select->step();
  if (!row) return row.error();
  if (!*row) return std::optional<LocalSession>();
  return std::optional<LocalSession>(read_session(*select));
}

Status LocalDb::create_untraced(const SessionId& id, std::int64_t now_ms) {
  std::lock_guard lock(writer_mutex_);
  Result<SqliteStatement> insert = writer_->prepare(
      "INSERT INTO sessions(key, token, tenant, user_id, created_ms, pending, touched_ms) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?5)");
  if (!insert) return insert.error();
  insert->bind(1, id.key())
      .bind(2, id.token())
      .bind(3, id.tenant())
      .bind(4, id.user())
      .bind(5, now_ms)
      .bind(6, std::int64_t{options_.journal ? 1 : 0});
  return insert->run();
}

Result<std::optional<LocalSession>> LocalDb::find_untraced(std::string_view key) {
  std::lock_guard lock(reader_mutex_);
  return find_locked(*reader_, key);
}

Result<std::vector<Message>> LocalDb::messages_untraced(std::string_view key, std::int64_t from_seq,
                                                        std::int64_t to_seq) {
  std::lock_guard lock(reader_mutex_);
  return local_db_rows::read_messages(*reader_, key, from_seq, to_seq);
}

Result<Conversation> LocalDb::change_handoff_untraced(std::string_view key,
                                                      const HandoffChange& change,
                                                      std::int64_t now_ms) {
  std::lock_guard lock(writer_mutex_);
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return status.error();
  Result<std::optional<LocalSession>> found = find_locked(*writer_, key);
  if (!found) return found.error();
  if (!*found) return unknown_session();
  Conversation conversation = (*found)->conversation;
  if (Status status = check_handoff(conversation.handoff, conversation.agent, change); !status)
    return status.error();
  std::string agent = change.to == Handoff::kTaken    ? change.agent
                      : change.to == Handoff::kClosed ? conversation.agent
                                                      : std::string();
  if (conversation.handoff == change.to && conversation.agent == agent) return conversation;
  Result<SqliteStatement> update = writer_->prepare(
      "UPDATE sessions SET handoff = ?2, agent = ?3, handoff_ms = ?4, "
      "state_version = max(state_version + 1, ?4), touched_ms = ?4, pending = max(pending, ?5) "
      "WHERE key = ?1");
  if (!update) return update.error();
  update->bind(1, key)
      .bind(2, std::int64_t{static_cast<int>(change.to)})
      .bind(3, agent)
      .bind(4, now_ms)
      .bind(5, std::int64_t{options_.journal ? 1 : 0});
  if (Status status = update->run(); !status) return status.error();
  if (Status status = transaction.commit(); !status) return status.error();
  conversation.handoff = change.to;
  conversation.agent = std::move(agent);
  conversation.handoff_ms = now_ms;
  return conversation;
}

Status LocalDb::set_csat_untraced(std::string_view key, int csat, std::int64_t now_ms) {
  std::lock_guard lock(writer_mutex_);
  Result<SqliteStatement> update = writer_->prepare(
      "UPDATE sessions SET csat = ?2, state_version = max(state_version + 1, ?3), "
      "touched_ms = ?3, pending = max(pending, ?4) WHERE key = ?1");
  if (!update) return update.error();
  update->bind(1, key)
      .bind(2, std::int64_t{csat})
      .bind(3, now_ms)
      .bind(4, std::int64_t{options_.journal ? 1 : 0});
  if (Status status = update->run(); !status) return status;
  if (writer_->changes() == 0) return unknown_session();
  return {};
}

Status LocalDb::rate_answer_untraced(std::string_view key, std::int64_t seq, Thumb thumb,
                                     bool check_role, std::int64_t now_ms) {
  std::lock_guard lock(writer_mutex_);
  SqliteTransaction transaction(*writer_);
  if (Status status = transaction.begin(); !status) return status;
  Result<SqliteStatement> touch = writer_->prepare(
      "UPDATE sessions SET touched_ms = ?2, pending = max(pending, ?3) WHERE key = ?1");
  if (!touch) return touch.error();
  touch->bind(1, key).bind(2, now_ms).bind(3, std::int64_t{options_.journal ? 1 : 0});
  if (Status status = touch->run(); !status) return status;
  if (writer_->changes() == 0) return unknown_session();
  if (check_role) {
    Result<SqliteStatement> role =
        writer_->prepare("SELECT role FROM messages WHERE key = ?1 AND seq = ?2");
    if (!role) return role.error();
    role->bind(1, key).bind(2, seq);
    Result<bool> row = role->step();
    if (!row) return row.error();
    if (!*row) {
      return Error{ErrorCode::kNotFound, "this conversation has no message " + std::to_string(seq),
                   "seq_id"};
    }
    if (role->int64(0) != static_cast<int>(Role::kAssistant)) {
      return Error::invalid("message " + std::to_string(seq) + " is not an answer", "seq_id");
    }
  }
  Result<SqliteStatement> insert = writer_->prepare(
      "INSERT INTO answer_ratings(key, seq, thumb, rated_ms, archived) VALUES(?1, ?2, ?3, ?4, ?5) "
      "ON CONFLICT(key, seq) DO UPDATE SET thumb = excluded.thumb, rated_ms = excluded.rated_ms, "
      "archived = excluded.archived");
  if (!insert) return insert.error();
  insert->bind(1, key)
      .bind(2, seq)
      .bind(3, std::int64_t{static_cast<int>(thumb)})
      .bind(4, now_ms)
      .bind(5, std::int64_t{options_.journal ? 0 : 1});
  if (Status status = insert->run(); !status) return status;
  return transaction.commit();
}

Result<std::vector<Feedback::Rating>> LocalDb::ratings_untraced(std::string_view key) {
  std::lock_guard lock(reader_mutex_);
  Result<SqliteStatement> select =
      reader_->prepare("SELECT seq, thumb FROM answer_ratings WHERE key = ?1 ORDER BY seq");
  if (!select) return select.error();
  select->bind(1, key);
  std::vector<Feedback::Rating> ratings;
  for (;;) {
    Result<bool> row = select->step();
    if (!row) return row.error();
    if (!*row) break;
    ratings.push_back({select->int64(0), select->int64(1) != 0 ? Thumb::kUp : Thumb::kDown});
  }
  return ratings;
}

Result<std::vector<Conversation>> LocalDb::waiting_untraced(std::string_view tenant,
                                                            std::size_t limit) {
  std::lock_guard lock(reader_mutex_);
  Result<SqliteStatement> select =
      reader_->prepare(std::string("SELECT ") + kSessionColumns +
                       " FROM sessions WHERE tenant = ?1 AND handoff = 1 "
                       "ORDER BY handoff_ms, key LIMIT ?2");
  if (!select) return select.error();
  select->bind(1, tenant).bind(2, static_cast<std::int64_t>(limit));
  std::vector<Conversation> conversations;
  for (;;) {
    Result<bool> row = select->step();
    if (!row) return row.error();
    if (!*row) break;
    conversations.push_back(read_session(*select).conversation);
  }
  return conversations;
}

Status LocalDb::for_each_session_untraced(
    const std::function<void(const std::string& token)>& visit) {
  std::lock_guard lock(reader_mutex_);
  Result<SqliteStatement> select = reader_->prepare("SELECT token FROM sessions");
  if (!select) return select.error();
  for (;;) {
    Result<bool> row = select->step();
    if (!row) return row.error();
    if (!*row) return {};
    visit(select->text(0));
  }
}

}  // namespace supportd::store
