// Database client spans (see db_span.h).
#include "store/db_span.h"

namespace supportd::store {

const char* db_system_name(DbSystem system) {
  switch (system) {
    case DbSystem::kRedis: return "redis";
    case DbSystem::kPostgresql: return "postgresql";
    case DbSystem::kSqlite: return "sqlite";
  }
  return "other_sql";
}

DbSpan::DbSpan(DbSystem system, std::string_view operation, std::string_view summary)
    : span_(summary.empty() ? operation : summary, obs::trace::SpanKind::kClient) {
  if (!span_.active()) return;
  const char* name = db_system_name(system);
  span_.set("db.system.name", name);
  span_.set("db.system", name);
  span_.set("db.operation.name", operation);
  if (!summary.empty()) span_.set("db.query.summary", summary);
}

void DbSpan::target(std::string_view db_namespace, std::string_view address, int port) {
  if (!span_.active()) return;
  if (!db_namespace.empty()) span_.set("db.namespace", db_namespace);
  if (!address.empty()) span_.set("server.address", address);
  if (port > 0) span_.set("server.port", port);
}

void DbSpan::failed(const Error& error) {
  if (error.code == ErrorCode::kNotFound || error.code == ErrorCode::kInvalidArgument) return;
  span_.fail(error_code_name(error.code), error.message);
}

}  // namespace supportd::store
