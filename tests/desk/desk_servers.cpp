// What the desk's crash and outage tests share (desk_servers.h).
#include "desk_servers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <pqxx/pqxx>
#include <thread>

#include "test_model.h"

namespace supportd::testing {

namespace fs = std::filesystem;

ScratchDirectory::ScratchDirectory(const std::string& name)
    : path(fs::temp_directory_path() / ("supportd-" + name + "-" + std::to_string(::getpid()))) {
  fs::remove_all(path);
  fs::create_directories(path);
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

std::vector<std::string> desk_flags(const std::vector<std::string>& more) {
  std::vector<std::string> flags = {"--model", synthesized_model(), "--encoder", "off"};
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}

std::vector<std::string> DatabaseServers::desk_flags() const {
  return testing::desk_flags({"--redis", redis.address(), "--postgres", postgres.uri()});
}

bool have_database_servers(std::string& why) {
  for (const char* binary : {"/usr/bin/redis-server", "/usr/lib/postgresql"})
    if (!fs::exists(binary)) why = std::string(binary) + " is not installed";
  return why.empty();
}

long long archived_messages(const std::string& uri) {
  try {
    pqxx::connection connection(uri);
    pqxx::nontransaction work(connection);
    return work.exec1("SELECT count(*) FROM supportd.messages")[0].as<long long>();
  } catch (const std::exception&) {
    return -1;
  }
}

bool wait_for_archived(const std::string& uri, long long count, int seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (archived_messages(uri) < count) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return true;
}

void expect_all_found(const HistoryCount& count, const std::string& what, int in_flight) {
  std::cout << "[ counted  ] " << what << ": acknowledged " << count.acknowledged << ", found "
            << count.found << ", unacknowledged customer messages present " << count.extra_user
            << std::endl;
  EXPECT_EQ(count.found, count.acknowledged) << what;
  EXPECT_GT(count.acknowledged, 0) << what;
  EXPECT_LE(count.extra_user, in_flight) << what;
  for (const std::string& problem : count.problems)
    ADD_FAILURE() << what << ": " << problem;
}

}  // namespace supportd::testing
