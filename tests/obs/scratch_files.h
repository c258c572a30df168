// Files a test writes for the code under test to read: in a directory of its own under the
// test's temporary directory, removed when the test ends.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace supportd::obs::testing {

class ScratchFiles {
 public:
  ScratchFiles() {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    directory_ = std::filesystem::path(::testing::TempDir()) /
                 ("supportd-obs-" + std::string(test->test_suite_name()) + "-" + test->name() +
                  "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_);
  }
  ~ScratchFiles() {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
  ScratchFiles(const ScratchFiles&) = delete;
  ScratchFiles& operator=(const ScratchFiles&) = delete;

  // The path of `name` in the directory (not created).
  std::string path(const std::string& name) const { return (directory_ / name).string(); }

  // Writes `content` to `name` (creating folders on the way) and returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    const auto file = directory_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }

  std::string read(const std::string& name) const {
    std::ifstream in(directory_ / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }

 private:
  std::filesystem::path directory_;
};

}  // namespace supportd::obs::testing
