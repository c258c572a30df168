// kill -9 of a real `supportd serve` while customers send messages, then a restart on the same
// data directory: every message answered 200 to its sender is there, in order, with its
// seq_id, and nothing half-written is visible. Counted (acknowledged vs found), with the
// embedded SQLite store and with Redis + PostgreSQL (servers this test starts itself).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "desk_customers.h"
#include "desk_servers.h"
#include "serve_process.h"

namespace supportd::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kCustomers = 4;
constexpr int kRounds = 3;
constexpr int kMaxMessagesEach = 150;  // across every round
constexpr const char* kSecret = "crash-test-session-secret-0123456789abcdef";

void expect_all_found(const HistoryCount& count, const std::string& what) {
  expect_all_found(count, what, kCustomers * kRounds);
}

// Rounds of: customers writing, the server killed with SIGKILL mid-request, restarted on the
// same data directory, every conversation read back and counted.
void crash_rounds(ServeProcess& server, CustomerLoad& load, const std::string& store) {
  std::string why;
  for (int round = 0; round < kRounds; ++round) {
    load.set_port(server.port());
    load.start(kMaxMessagesEach, /*stop_when_unanswered=*/true);
    ASSERT_TRUE(load.wait_for_acknowledged(20 + 7 * round, 180)) << server.log();
    server.kill();  // SIGKILL: the customers are mid-request
    load.stop();
    server.restart();
    ASSERT_TRUE(server.wait_ready(why, 300)) << why;
    const HistoryCount count = load.count_history(server.port());
    expect_all_found(count, store + ", after crash " + std::to_string(round + 1));
    ::testing::Test::RecordProperty(store + "_acknowledged_" + std::to_string(round + 1),
                                    count.acknowledged);
    ::testing::Test::RecordProperty(store + "_found_" + std::to_string(round + 1), count.found);
  }
}

TEST(DeskCrash, SqliteLosesNoAcknowledgedMessage) {
  ServeProcess server(desk_flags());
  std::string why;
  ASSERT_TRUE(server.wait_ready(why, 300)) << why;
  CustomerLoad load(server.port(), kCustomers);
  crash_rounds(server, load, "sqlite");
}

TEST(DeskCrash, RedisAndPostgresLoseNoAcknowledgedMessage) {
  std::string why;
  if (!have_database_servers(why)) GTEST_SKIP() << why;
  DatabaseServers servers;
  ASSERT_TRUE(servers.start());
  std::vector<std::string> flags = servers.desk_flags();
  flags.insert(flags.end(), {"--session-secret", kSecret});  // shared by the fresh process

  auto server = std::make_unique<ServeProcess>(flags);
  ASSERT_TRUE(server->wait_ready(why, 300)) << why;
  CustomerLoad load(server->port(), kCustomers);
  crash_rounds(*server, load, "redis+postgres");

  // The journal's messages reach PostgreSQL by themselves after the last restart.
  const HistoryCount journal = load.count_history(server->port());
  const long long expected = journal.found + journal.extra_user;  // at least these
  EXPECT_TRUE(wait_for_archived(servers.postgres.uri(), expected, 60));
  server.reset();

  // Another process with an empty data directory and Redis emptied: only PostgreSQL can answer.
  servers.redis.kill();
  ASSERT_TRUE(servers.redis.start());
  ServeProcess fresh(flags);
  ASSERT_TRUE(fresh.wait_ready(why, 300)) << why;
  expect_all_found(load.count_history(fresh.port()), "redis+postgres, read from PostgreSQL alone");
}

}  // namespace
}  // namespace supportd::testing
