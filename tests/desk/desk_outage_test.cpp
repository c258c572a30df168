// A real `supportd serve` on Redis + PostgreSQL (servers this test starts itself) while each is
// killed, paused (SIGSTOP) and restarted under a steady load of customers: answers go on during
// every outage (the journal acknowledges), whatever is refused is a JSON error, no connection is
// dropped, every acknowledged message is found afterwards (counted), and PostgreSQL catches up
// by itself once it is back.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "desk_customers.h"
#include "desk_servers.h"
#include "serve_process.h"

namespace supportd::testing {
namespace {

constexpr int kCustomers = 4;

struct Outage {
  std::string name;
  std::function<void()> begin;
  std::function<bool()> end;  // false when the server could not be brought back
};

TEST(DeskOutage, RedisAndPostgresStoppedPausedAndRestartedUnderLoad) {
  std::string why;
  if (!have_database_servers(why)) GTEST_SKIP() << why;
  DatabaseServers servers;
  ASSERT_TRUE(servers.start());
  auto& redis = servers.redis;
  auto& postgres = servers.postgres;
  ServeProcess server(servers.desk_flags());
  ASSERT_TRUE(server.wait_ready(why, 300)) << why;

  CustomerLoad load(server.port(), kCustomers);
  // Enough for every outage and its recovery on a fast machine (400 each ran out before the
  // last recovery was seen: 3,200 acknowledged, then no more to acknowledge); stop() ends it.
  load.start(/*max_messages=*/4000, /*stop_when_unanswered=*/false);
  ASSERT_TRUE(load.wait_for_acknowledged(12, 120)) << server.log();

  const std::vector<Outage> outages = {
      {"Redis killed", [&] { redis.kill(); }, [&] { return redis.start(); }},
      {"Redis paused", [&] { redis.pause(); },
       [&] {
         redis.resume();
         return true;
       }},
      {"PostgreSQL shut down immediately", [&] { postgres.kill(); },
       [&] { return postgres.start(); }},
      {"PostgreSQL paused", [&] { postgres.pause(); },
       [&] {
         postgres.resume();
         return true;
       }},
      {"both killed",
       [&] {
         redis.kill();
         postgres.kill();
       },
       [&] { return redis.start() && postgres.start(); }},
  };
  for (const Outage& outage : outages) {
    outage.begin();
    const int before = load.acknowledged();
    EXPECT_TRUE(load.wait_for_acknowledged(12, 120))
        << "answers stopped while " << outage.name << ": " << server.log();
    std::cout << "[ outage   ] " << outage.name << ": " << load.acknowledged() - before
              << " messages acknowledged meanwhile" << std::endl;
    ASSERT_TRUE(outage.end()) << outage.name;
    // Back to normal by itself: more answers after the server returned.
    EXPECT_TRUE(load.wait_for_acknowledged(8, 120)) << "no recovery after " << outage.name;
  }
  load.stop();

  EXPECT_EQ(load.unanswered(), 0) << "requests left without any answer";
  EXPECT_EQ(load.unclear_refusals(), 0) << "refusals without a JSON error";
  for (const auto& [status, count] : load.refusals())
    std::cout << "[ refused  ] HTTP " << status << ": " << count << std::endl;
  // Histories longer than the journal keeps need PostgreSQL, which the store finds back by
  // itself (one probe per backoff, at most 2 s apart): bounded, never a fixed wait.
  HistoryCount count = load.count_history(server.port());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int unavailable_reads = 0;
  while (!count.problems.empty() && std::chrono::steady_clock::now() < deadline) {
    ++unavailable_reads;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    count = load.count_history(server.port());
  }
  std::cout << "[ recovery ] history reads refused after the last outage: " << unavailable_reads
            << std::endl;
  expect_all_found(count, "outages", 0);
  RecordProperty("acknowledged", count.acknowledged);
  RecordProperty("found", count.found);
  // The write-behind catches PostgreSQL up with everything it missed, without being asked.
  EXPECT_TRUE(wait_for_archived(postgres.uri(), count.found, 120))
      << "PostgreSQL holds " << archived_messages(postgres.uri()) << " of " << count.found;
}

}  // namespace
}  // namespace supportd::testing
