// The durable copy of every conversation, in PostgreSQL (schema "supportd"): sessions with
// their state, messages with their per-session seq_id, answer ratings. The schema is created
// or migrated on first connect (under an advisory lock, so processes may start together);
// statements are prepared; a lost connection is reopened on demand, and a circuit breaker
// refuses calls at once while PostgreSQL is down. Every call is bounded by the configured
// timeouts (connect, statement, TCP), and a watchdog cuts a connection whose server stops
// answering, so a hung server cannot hold a caller for long. Inside a traced request each call
// is a CLIENT span ("SELECT supportd.messages", store/db_span.h).
// Thread-safety: every method may be called from any thread; calls share one connection and
// run one at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/circuit_breaker.h"
#include "store/local_session.h"
#include "store/session_view.h"

namespace supportd::store {

class DbSpan;

class PostgresArchive {
 public:
  struct Options {
    std::string uri;  // libpq URI (postgresql://user@host:port/db) or key=value string
    std::chrono::milliseconds connect_timeout{2000};
    std::chrono::milliseconds statement_timeout{2000};
    std::chrono::milliseconds min_backoff{100};
    std::chrono::milliseconds max_backoff{2000};
  };

  // Does not connect: the first call does.
  explicit PostgresArchive(Options options);
  ~PostgresArchive();
  PostgresArchive(const PostgresArchive&) = delete;
  PostgresArchive& operator=(const PostgresArchive&) = delete;

  // Connects now (creating or migrating the schema). unavailable when unreachable.
  Status connect();

  // A message PostgreSQL already holds another message at the seq_id of (another process
  // wrote the session at the same time, while Redis was out of reach).
  struct Conflict {
    std::size_t session = 0;         // index in the batch
    std::size_t message = 0;         // index in that session's view.recent
    std::int64_t archived_last = 0;  // the session's last_seq in PostgreSQL
  };
  // Writes `batch` in one transaction. Idempotent: writing a batch again changes nothing,
  // and an older state never overwrites a newer one. A conflicting message is not written
  // (the archived one stays) and is returned, for the caller to write at a new seq_id.
  Result<std::vector<Conflict>> write(const std::vector<PendingSession>& batch);

  // The session's state and its newest `recent` messages; nullopt when it is not archived.
  Result<std::optional<SessionView>> load(std::string_view key, std::size_t recent);
  // Messages from_seq..to_seq of `key`, ascending.
  Result<std::vector<Message>> messages(std::string_view key, std::int64_t from_seq,
                                        std::int64_t to_seq);
  Result<std::vector<Feedback::Rating>> ratings(std::string_view key);
  // Conversations of `tenant` waiting for a human, oldest first.
  Result<std::vector<Conversation>> waiting(std::string_view tenant, std::size_t limit);
  // Calls `visit` with every archived session's token, in pages.
  Status for_each_session(const std::function<void(const std::string&)>& visit);

  // False while PostgreSQL is known to be down.
  bool available() const { return !breaker_.is_open(); }
  // Connection failures and timeouts since construction.
  std::int64_t errors() const { return breaker_.failures(); }

 private:
  struct Connection;
  // Runs `body` on the connection (opened if needed), converting failures to errors; inside a
  // traced request, as a CLIENT span of the call `what` (but connect, which has none).
  Status run(const char* what, const std::function<void(Connection&)>& body);
  // run() without the span; `span` (may be null) is told the connection's database and server
  // and a failed statement's SQLSTATE.
  Status attempt(const char* what, const std::function<void(Connection&)>& body, DbSpan* span);

  const Options options_;
  CircuitBreaker breaker_;
  std::unique_ptr<Connection> connection_;  // used only inside run(), under its mutex
};

}  // namespace supportd::store
