// Internal to postgres_archive.cpp: the PostgreSQL schema and its migrations.
#pragma once

#include <stdexcept>

namespace pqxx {
class connection_base;
}

namespace supportd::store {

// The database was migrated by a newer supportd than this one.
struct SchemaTooNew : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Creates schema "supportd" or brings it to the newest version, under an advisory lock so
// that processes starting together migrate once. Throws pqxx errors or SchemaTooNew.
void migrate_schema(pqxx::connection_base& db);

}  // namespace supportd::store
