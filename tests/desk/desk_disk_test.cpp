// A real `supportd serve` whose data directory (embedded SQLite) is a small tmpfs of this test's
// own: filled up under a load of customers, then freed: supportd keeps answering what it can
// (reads), refuses what it cannot with a JSON error, loses nothing it acknowledged (counted,
// also across a kill -9), and recovers by itself when space returns. Mounted read-only, it
// refuses to start, naming the directory; writable again, every acknowledged message is there.
// Mounting needs root (CAP_SYS_ADMIN): without it the tests skip, saying so.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "desk_customers.h"
#include "desk_servers.h"
#include "http_client.h"
#include "serve_process.h"

namespace supportd::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kCustomers = 3;
constexpr std::size_t kTextLength = 3000;

// A tmpfs of `megabytes` mounted on a fresh directory; unmounted with the object.
class SmallDisk {
 public:
  SmallDisk(const fs::path& where, int megabytes) : path_(where) {
    fs::create_directories(path_);
    const std::string options = "size=" + std::to_string(megabytes) + "m,mode=0755";
    if (::mount("tmpfs", path_.c_str(), "tmpfs", 0, options.c_str()) != 0)
      refused_ = std::string("mounting a tmpfs is not permitted here (") + std::strerror(errno) +
                 "): the disk-full and read-only tests need root";
  }
  ~SmallDisk() {
    if (refused_.empty()) ::umount2(path_.c_str(), MNT_DETACH);
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;

  const std::string& refused() const { return refused_; }
  const fs::path& path() const { return path_; }
  // Writes a filler file until the disk is full (bounded by the disk's size).
  void fill() {
    std::ofstream out(path_ / "filler", std::ios::binary);
    const std::string block(64 * 1024, 'x');
    for (int i = 0; i < 64 * 1024 && out.write(block.data(), block.size()); ++i) {
    }
  }
  void free_filler() { fs::remove(path_ / "filler"); }
  bool remount(bool read_only) {
    const unsigned long flags = MS_REMOUNT | (read_only ? MS_RDONLY : 0);
    return ::mount("tmpfs", path_.c_str(), "tmpfs", flags, nullptr) == 0;
  }

 private:
  fs::path path_;
  std::string refused_;
};

int total(const std::map<int, int>& refusals) {
  int sum = 0;
  for (const auto& [status, count] : refusals)
    sum += count;
  return sum;
}

TEST(DeskDisk, AFullDiskRefusesWritesKeepsReadsAndRecovers) {
  const ScratchDirectory dir("disk-full");
  SmallDisk disk(dir.path / "data", 64);
  if (!disk.refused().empty()) GTEST_SKIP() << disk.refused();
  ServeProcess server(desk_flags(), "warn", disk.path());
  std::string why;
  ASSERT_TRUE(server.wait_ready(why, 300)) << why;

  CustomerLoad load(server.port(), kCustomers, kTextLength);
  load.start(/*max_messages=*/300, /*stop_when_unanswered=*/false);
  ASSERT_TRUE(load.wait_for_acknowledged(10, 120)) << server.log();

  disk.fill();
  // Writes are refused, each with a JSON error, once SQLite needs space it cannot get.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (total(load.refusals()) < 10 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GE(total(load.refusals()), 10) << "writes were never refused on a full disk";
  // What needs no space is still answered.
  EXPECT_EQ(http_request(server.port(), "GET", "/health").status, 200);
  const HistoryCount full = load.count_history(server.port());
  EXPECT_TRUE(full.problems.empty()) << "reading histories on a full disk: " << full.problems[0];

  disk.free_filler();
  EXPECT_TRUE(load.wait_for_acknowledged(10, 120)) << "no recovery once space returned";
  load.stop();
  EXPECT_EQ(load.unanswered(), 0) << "requests left without any answer";
  EXPECT_EQ(load.unclear_refusals(), 0) << "refusals without a JSON error";
  for (const auto& [status, count] : load.refusals())
    std::cout << "[ refused  ] HTTP " << status << ": " << count << std::endl;
  expect_all_found(load.count_history(server.port()), "disk full, then freed", 0);

  // And what was acknowledged around the full disk survives a crash.
  server.restart();
  ASSERT_TRUE(server.wait_ready(why, 300)) << why;
  expect_all_found(load.count_history(server.port()), "disk full, then a kill -9", 0);
}

TEST(DeskDisk, AReadOnlyDataDirectoryIsRefusedClearlyAndNothingIsLost) {
  const ScratchDirectory dir("disk-read-only");
  SmallDisk disk(dir.path / "data", 64);
  if (!disk.refused().empty()) GTEST_SKIP() << disk.refused();
  ServeProcess server(desk_flags(), "warn", disk.path());
  std::string why;
  ASSERT_TRUE(server.wait_ready(why, 300)) << why;
  CustomerLoad load(server.port(), kCustomers);
  load.start(/*max_messages=*/20, /*stop_when_unanswered=*/true);
  ASSERT_TRUE(load.wait_for_acknowledged(10, 120)) << server.log();
  load.stop();

  // The disk turns read-only (remounted while supportd is down: Linux refuses to remount a
  // file system read-only while a process holds a file open for writing on it).
  server.kill();
  ASSERT_TRUE(disk.remount(/*read_only=*/true)) << std::strerror(errno);
  // supportd cannot take a message it cannot keep: it refuses to start, saying which directory
  // and why, rather than serving a desk that would refuse every customer.
  server.restart();
  EXPECT_FALSE(server.wait_ready(why, 300));
  EXPECT_NE(why.find("the data directory " + disk.path().string() + " is not writable"),
            std::string::npos)
      << why;
  server.kill();
  ASSERT_TRUE(disk.remount(/*read_only=*/false)) << std::strerror(errno);
  server.restart();
  ASSERT_TRUE(server.wait_ready(why, 300)) << why;
  expect_all_found(load.count_history(server.port()), "writable again", 0);
}

}  // namespace
}  // namespace supportd::testing
