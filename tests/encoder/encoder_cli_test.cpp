// `supportd encoder embed|bench` through the built binary: counts out of range or not numbers
// are refused before the model is loaded, with a message that says the range in plain numbers.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_paths.h"

namespace supportd::encoder {
namespace {

struct CommandRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

CommandRun supportd_encoder(const std::string& arguments) {
  const std::string out =
      (std::filesystem::temp_directory_path() / ("encoder-cli-" + std::to_string(::getpid())))
          .string();
  const int status = std::system(
      (testing::supportd_binary() + " encoder " + arguments + " >" + out + " 2>&1").c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(out);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text.str()};
}

TEST(EncoderCli, RefusesCountsOutOfRangeReadably) {
  const std::pair<std::string, std::string> bad[] = {
      {"bench --queries 0", "--queries: must be a whole number from 1 to 1000000, not '0'"},
      {"bench --queries abc", "--queries: must be a whole number from 1 to 1000000, not 'abc'"},
      {"bench --batch 0", "--batch: must be a whole number from 1 to"},
      {"bench --batches -1", "--batches: must be a whole number from 1 to"},
      {"bench --threads -1", "--threads: must be a whole number from 0 to"},
      {"bench --threads 99999999999", "--threads: must be a whole number from 0 to"},
      {"embed --dimensions -1 hello", "--dimensions: must be a whole number from 1 to 512"},
      {"embed --dimensions 0 hello", "--dimensions: must be a whole number from 1 to 512"},
      {"embed --dimensions 100000 hello", "--dimensions: must be a whole number from 1 to 512"}};
  for (const auto& [arguments, expected] : bad) {
    const CommandRun run = supportd_encoder(arguments);
    EXPECT_NE(run.exit_code, 0) << arguments << "\n" << run.output;
    EXPECT_NE(run.output.find(expected), std::string::npos) << arguments << "\n" << run.output;
    EXPECT_LT(run.output.size(), 300u) << arguments << "\n" << run.output;
  }
}

}  // namespace
}  // namespace supportd::encoder
