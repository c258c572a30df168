// A CLIENT span around one call to Redis, PostgreSQL or SQLite, with the OpenTelemetry database
// semantic conventions: named by its db.query.summary ("SELECT sessions", "GET"), with
// db.system.name (and the older db.system, which many backends still read), db.operation.name,
// db.query.summary, db.namespace, server.address and server.port where there is a server, and
// error.type with an error status when the call fails. It is a child of the thread's current
// span (obs/trace/current.h); a call made with no current request (the tiered store's
// write-behind thread, start-up) makes no span, at the cost of one thread-local read.
// Statements are never recorded: a summary names the operation and the tables, not values.
// Thread-safety: a DbSpan belongs to the thread that made it and ends on it, in reverse order
// of the spans made there.
#pragma once

#include <string_view>
#include <utility>

#include "core/status.h"
#include "obs/trace/current.h"

namespace supportd::store {

enum class DbSystem { kRedis, kPostgresql, kSqlite };
const char* db_system_name(DbSystem system);  // "redis", "postgresql", "sqlite"

class DbSpan {
 public:
  // `operation`: db.operation.name ("SELECT", "GET"); `summary`: db.query.summary and the
  // span's name; empty: the operation names the span and no summary is set.
  DbSpan(DbSystem system, std::string_view operation, std::string_view summary = {});
  DbSpan(const DbSpan&) = delete;
  DbSpan& operator=(const DbSpan&) = delete;

  bool active() const { return span_.active(); }
  // db.namespace, server.address and server.port, each when given (not empty, port > 0).
  void target(std::string_view db_namespace, std::string_view address = {}, int port = 0);
  // Any other attribute (db.operation.batch.size, db.response.status_code); nothing when
  // inactive.
  template <typename Value>
  void set(const char* key, Value&& value) {
    span_.set(key, std::forward<Value>(value));
  }
  // The call failed with `error`: error status, error.type its kind ("unavailable", "io_error").
  // A not_found or invalid_argument answer is the database's answer, not a failed call: it
  // leaves the span as it is.
  void failed(const Error& error);
  // failed() for a call's Result or Status when it holds an error; returns it unchanged.
  template <typename Outcome>
  Outcome outcome(Outcome result) {
    if (!result) failed(result.error());
    return result;
  }

 private:
  obs::trace::ScopedSpan span_;
};

}  // namespace supportd::store
