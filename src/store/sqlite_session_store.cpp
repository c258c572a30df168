// The embedded store (sqlite_session_store.h): every SessionStore call on one LocalDb without the
// journal's bookkeeping.
#include "store/sqlite_session_store.h"

#include <algorithm>

#include "store/local_db.h"

namespace supportd::store {

Result<std::unique_ptr<SqliteSessionStore>> SqliteSessionStore::open(const Options& options) {
  LocalDb::Options local;
  local.path = options.path;
  local.sync_every_commit = options.sync_every_commit;
  local.journal = false;
  local.window = 0;
  Result<std::unique_ptr<LocalDb>> db = LocalDb::open(local);
  if (!db) return db.error();
  return std::unique_ptr<SqliteSessionStore>(new SqliteSessionStore(std::move(*db)));
}

SqliteSessionStore::SqliteSessionStore(std::unique_ptr<LocalDb> db) : db_(std::move(db)) {}

SqliteSessionStore::~SqliteSessionStore() = default;

Result<Conversation> SqliteSessionStore::create(const SessionId& id) {
  const std::int64_t now = unix_ms();
  if (Status status = db_->create(id, now); !status) return status.error();
  Conversation conversation;
  conversation.session = id.token();
  conversation.tenant = id.tenant();
  conversation.user = id.user();
  conversation.created_ms = now;
  return conversation;
}

Result<std::int64_t> SqliteSessionStore::append(const SessionId& id, const NewMessage& message) {
  if (Status status = check_new_message(message); !status) return status.error();
  return db_->append(id.key(), message, unix_ms());
}

Result<std::vector<Message>> SqliteSessionStore::history(const SessionId& id, std::size_t limit,
                                                         std::int64_t before_seq) {
  Result<std::optional<LocalSession>> found = db_->find(id.key());
  if (!found) return found.error();
  if (!*found) return unknown_session();
  const std::int64_t last = (*found)->conversation.last_seq;
  const SeqRange range = history_range(last, limit, before_seq);
  const std::int64_t from = range.from;
  const std::int64_t to = range.to;
  if (to < from) return std::vector<Message>();
  return db_->messages(id.key(), from, to);
}

Result<Conversation> SqliteSessionStore::conversation(const SessionId& id) {
  Result<std::optional<LocalSession>> found = db_->find(id.key());
  if (!found) return found.error();
  if (!*found) return unknown_session();
  return (*found)->conversation;
}

Result<Conversation> SqliteSessionStore::change_handoff(const SessionId& id,
                                                        const HandoffChange& change) {
  return db_->change_handoff(id.key(), change, unix_ms());
}

Status SqliteSessionStore::rate_answer(const SessionId& id, std::int64_t seq_id, Thumb thumb) {
  return db_->rate_answer(id.key(), seq_id, thumb, /*check_role=*/true, unix_ms());
}

Status SqliteSessionStore::rate_conversation(const SessionId& id, int csat) {
  if (Status status = check_csat(csat); !status) return status;
  return db_->set_csat(id.key(), csat, unix_ms());
}

Result<Feedback> SqliteSessionStore::feedback(const SessionId& id) {
  Result<Conversation> state = conversation(id);
  if (!state) return state.error();
  Result<std::vector<Feedback::Rating>> ratings = db_->ratings(id.key());
  if (!ratings) return ratings.error();
  return Feedback{std::move(*ratings), state->csat};
}

Result<WaitingList> SqliteSessionStore::waiting_for_human(std::string_view tenant,
                                                          std::size_t limit) {
  if (Status status = check_name(tenant, "tenant"); !status) return status.error();
  Result<std::vector<Conversation>> waiting =
      db_->waiting(tenant, std::min(limit, kMaxWaitingListed));
  if (!waiting) return waiting.error();
  return WaitingList{std::move(*waiting), false};
}

Status SqliteSessionStore::for_each_session(const std::function<void(const std::string&)>& visit) {
  return db_->for_each_session(visit);
}

Status SqliteSessionStore::flush(std::chrono::milliseconds) {
  return {};
}

StoreStats SqliteSessionStore::stats() {
  StoreStats stats;
  stats.backend = "sqlite";
  return stats;
}

}  // namespace supportd::store
