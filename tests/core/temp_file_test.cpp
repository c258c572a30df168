// core/temp_file.h: outputs appear whole or not at all, links and pipes are honoured.
#include "core/temp_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace supportd {
namespace {

namespace fs = std::filesystem;

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class WriteFileAtomically : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("supportd-temp-file-" + std::to_string(::getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  // Files in the directory other than `expected` (leftover temporaries).
  int others(int expected) const {
    return static_cast<int>(std::distance(fs::directory_iterator(directory_), {})) - expected;
  }
  fs::path directory_;
};

TEST_F(WriteFileAtomically, ReplacesAFileWholeAndLeavesNothingBehind) {
  const fs::path report = directory_ / "report.json";
  std::ofstream(report) << "old";
  ASSERT_TRUE(write_file_atomically(report.string(), "new and longer").ok());
  EXPECT_EQ(contents(report), "new and longer");
  EXPECT_EQ(others(1), 0);
  EXPECT_EQ(fs::status(report).permissions() & fs::perms::others_read, fs::perms::others_read);
}

TEST_F(WriteFileAtomically, AMissingDirectoryIsAnErrorNamingThePath) {
  const fs::path report = directory_ / "no-such-dir" / "report.json";
  const Status status = write_file_atomically(report.string(), "x");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find(report.string()), std::string::npos)
      << status.error().message;
  EXPECT_EQ(others(0), 0);
}

TEST_F(WriteFileAtomically, ALinkKeepsPointingAtTheFileItNames) {
  const fs::path target = directory_ / "target.html";
  const fs::path link = directory_ / "latest.html";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  ASSERT_TRUE(write_file_atomically(link.string(), "new").ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(contents(target), "new");
  EXPECT_EQ(others(2), 0);
}

TEST_F(WriteFileAtomically, APipeIsWrittenIntoNotReplaced) {
  // Like --json /dev/stdout: there is no file to replace, and renaming onto it would remove it.
  const fs::path pipe = directory_ / "pipe";
  ASSERT_EQ(::mkfifo(pipe.c_str(), 0600), 0);
  const int reader = ::open(pipe.c_str(), O_RDONLY | O_NONBLOCK);  // so the writer never waits
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(write_file_atomically(pipe.string(), "through the pipe").ok());
  char buffer[64] = {};
  const ssize_t n = ::read(reader, buffer, sizeof buffer);
  ::close(reader);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<std::size_t>(n) : 0), "through the pipe");
  EXPECT_TRUE(fs::is_fifo(pipe));
}

}  // namespace
}  // namespace supportd
