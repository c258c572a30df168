// What the desk's crash and outage tests share besides the customers (desk_customers.h): a
// scratch directory, whether Redis and PostgreSQL can be started here, what PostgreSQL holds,
// and the count check.
#pragma once

#include <filesystem>
#include <string>

#include "desk_customers.h"

namespace supportd::testing {

// A fresh directory under the temporary directory, removed with the object.
struct ScratchDirectory {
  explicit ScratchDirectory(const std::string& name);
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  std::filesystem::path path;
};

// True when the Redis and PostgreSQL server binaries are installed; else why not.
bool have_database_servers(std::string& why);

// Messages PostgreSQL at `uri` holds in supportd.messages (-1 when it cannot be asked).
long long archived_messages(const std::string& uri);
// Waits (at most `seconds`) until PostgreSQL holds at least `count` messages.
bool wait_for_archived(const std::string& uri, long long count, int seconds);

// Prints the count and fails the test unless every acknowledged message was found, at most
// `in_flight` unacknowledged customer messages are present, and nothing else is wrong.
void expect_all_found(const HistoryCount& count, const std::string& what, int in_flight);

}  // namespace supportd::testing
