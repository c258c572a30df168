// Usage errors on the command line, whichever part of supportd notices them: CLI11 (an unknown
// flag, a value that is not a number, a missing required option) or supportd's own checks
// (a value out of range). Scripts can tell them from failures at work (exit 1) by the code 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "supportd_command.h"

namespace supportd {
namespace {

namespace fs = std::filesystem;
using testing::run_supportd;

TEST(UsageErrors, ExitTwoWithAMessageWhicheverCheckFindsThem) {
  const fs::path out =
      fs::temp_directory_path() / ("supportd-usage-" + std::to_string(::getpid()) + ".gguf");
  const std::vector<std::vector<std::string>> mistakes = {
      {"serve", "--no-such-flag"},                       // CLI11: an extra argument
      {"serve", "--port", "eighty"},                     // CLI11: not a number
      {"model", "synth", "--preset", "tiny"},            // CLI11: --out is required
      {"kb", "search", "--kb"},                          // CLI11: a flag without its value
      {"model", "synth", "--seed", "-5", "--out", out},  // a seed below 0 once wrapped around
      {"serve", "--threads", "-1"},                      // supportd's own range check
      {},                                                // no command at all
  };
  for (const auto& arguments : mistakes) {
    const auto run = run_supportd(arguments);
    const std::string shown = arguments.empty() ? "(none)" : arguments.front() + " ...";
    EXPECT_EQ(run.exit_code, 2) << shown << "\n" << run.err;
    EXPECT_FALSE(run.err.empty()) << shown;
  }
  EXPECT_FALSE(fs::exists(out)) << "a refused synth wrote its output";
  EXPECT_EQ(run_supportd({"--help"}).exit_code, 0);
  EXPECT_EQ(run_supportd({"model", "synth", "--help"}).exit_code, 0);
  EXPECT_EQ(run_supportd({"--version"}).exit_code, 0);
}

}  // namespace
}  // namespace supportd
