// What the desk's crash and outage tests share besides the customers (desk_customers.h): the
// desk's flags, a scratch directory, Redis and PostgreSQL servers of the test's own, what
// PostgreSQL holds, and the count check.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "desk_customers.h"
#include "test_servers.h"

namespace supportd::testing {

// A fresh directory under the temporary directory, removed with the object.
struct ScratchDirectory {
  explicit ScratchDirectory(const std::string& name);
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  std::filesystem::path path;
};

// `supportd serve` flags for a desk on the tiny synthesized model that answers without
// generating (from the knowledge base, or its fallback), so a turn is quick and stores the
// customer's message and the answer; then `more`.
std::vector<std::string> desk_flags(const std::vector<std::string>& more = {});

// True when the Redis and PostgreSQL server binaries are installed; else why not.
bool have_database_servers(std::string& why);

// A Redis and a PostgreSQL of the test's own (test_servers.h), in a scratch directory.
struct DatabaseServers {
  DatabaseServers()
      : directory("databases"),
        redis(directory.path / "redis"),
        postgres(directory.path / "postgres") {}
  bool start() { return redis.start() && postgres.start(); }
  // desk_flags() with --redis and --postgres pointing at them.
  std::vector<std::string> desk_flags() const;
  ScratchDirectory directory;
  store::testing::RedisServer redis;
  store::testing::PostgresServer postgres;
};

// Messages PostgreSQL at `uri` holds in supportd.messages (-1 when it cannot be asked).
long long archived_messages(const std::string& uri);
// Waits (at most `seconds`) until PostgreSQL holds at least `count` messages.
bool wait_for_archived(const std::string& uri, long long count, int seconds);

// Prints the count and fails the test unless every acknowledged message was found, at most
// `in_flight` unacknowledged customer messages are present, and nothing else is wrong.
void expect_all_found(const HistoryCount& count, const std::string& what, int in_flight);

}  // namespace supportd::testing
