// LocalDb's calls as database CLIENT spans (store/db_span.h): each public call a request may
// make is its SQLite work (the *_untraced twin) inside a span named by what it does to which
// table, with the file as db.namespace. No statement text and no value is recorded.
#include "store/db_span.h"
#include "store/local_db.h"

namespace supportd::store {
namespace {

// A span of `db`'s file; `operation` and `summary` are string literals.
class SqliteSpan : public DbSpan {
 public:
  SqliteSpan(const std::filesystem::path& file, const char* operation, const char* summary)
      : DbSpan(DbSystem::kSqlite, operation, summary) {
    target(file.native());
  }
};

}  // namespace

Status LocalDb::create(const SessionId& id, std::int64_t now_ms) {
  SqliteSpan span(options_.path, "INSERT", "INSERT sessions");
  return span.outcome(create_untraced(id, now_ms));
}

Result<std::optional<LocalSession>> LocalDb::find(std::string_view key) {
  SqliteSpan span(options_.path, "SELECT", "SELECT sessions");
  return span.outcome(find_untraced(key));
}

Result<std::int64_t> LocalDb::append(std::string_view key, const NewMessage& message,
                                     std::int64_t now_ms) {
  SqliteSpan span(options_.path, "INSERT", "INSERT messages");
  return span.outcome(append_untraced(key, message, now_ms));
}

Status LocalDb::retract(std::string_view key, std::int64_t seq) {
  SqliteSpan span(options_.path, "DELETE", "DELETE messages");
  return span.outcome(retract_untraced(key, seq));
}

Result<std::vector<Message>> LocalDb::messages(std::string_view key, std::int64_t from_seq,
                                               std::int64_t to_seq) {
  SqliteSpan span(options_.path, "SELECT", "SELECT messages");
  return span.outcome(messages_untraced(key, from_seq, to_seq));
}

Result<Conversation> LocalDb::change_handoff(std::string_view key, const HandoffChange& change,
                                             std::int64_t now_ms) {
  SqliteSpan span(options_.path, "UPDATE", "UPDATE sessions");
  return span.outcome(change_handoff_untraced(key, change, now_ms));
}

Status LocalDb::set_csat(std::string_view key, int csat, std::int64_t now_ms) {
  SqliteSpan span(options_.path, "UPDATE", "UPDATE sessions");
  return span.outcome(set_csat_untraced(key, csat, now_ms));
}

Status LocalDb::rate_answer(std::string_view key, std::int64_t seq, Thumb thumb, bool check_role,
                            std::int64_t now_ms) {
  SqliteSpan span(options_.path, "INSERT", "INSERT answer_ratings");
  return span.outcome(rate_answer_untraced(key, seq, thumb, check_role, now_ms));
}

Result<std::vector<Feedback::Rating>> LocalDb::ratings(std::string_view key) {
  SqliteSpan span(options_.path, "SELECT", "SELECT answer_ratings");
  return span.outcome(ratings_untraced(key));
}

Result<std::vector<Conversation>> LocalDb::waiting(std::string_view tenant, std::size_t limit) {
  SqliteSpan span(options_.path, "SELECT", "SELECT sessions");
  return span.outcome(waiting_untraced(tenant, limit));
}

Status LocalDb::for_each_session(const std::function<void(const std::string& token)>& visit) {
  SqliteSpan span(options_.path, "SELECT", "SELECT sessions");
  return span.outcome(for_each_session_untraced(visit));
}

Result<std::int64_t> LocalDb::adopt(const SessionView& remote, std::int64_t now_ms) {
  SqliteSpan span(options_.path, "INSERT", "INSERT sessions messages");
  return span.outcome(adopt_untraced(remote, now_ms));
}

Status LocalDb::mark_cache_stale(std::string_view key) {
  SqliteSpan span(options_.path, "UPDATE", "UPDATE sessions");
  return span.outcome(mark_cache_stale_untraced(key));
}

Status LocalDb::mark_cache_current(std::string_view key, std::int64_t last_seq,
                                   std::int64_t state_version) {
  SqliteSpan span(options_.path, "UPDATE", "UPDATE sessions");
  return span.outcome(mark_cache_current_untraced(key, last_seq, state_version));
}

Result<PendingCounts> LocalDb::pending_counts() {
  SqliteSpan span(options_.path, "SELECT", "SELECT sessions messages");
  return span.outcome(pending_counts_untraced());
}

}  // namespace supportd::store
