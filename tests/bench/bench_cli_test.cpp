// `supportd bench` refusing bad input through the built binary, before any request is sent:
// every case names the flag or file and exits 2. The target is a closed loopback port, so a
// case that wrongly starts a run fails fast with a connection error (exit 1) instead.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "supportd_command.h"

namespace supportd::bench {
namespace {

namespace fs = std::filesystem;

using Command = supportd::testing::CommandRun;

class BenchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("supportd-bench-refuse-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(dir_ / name, std::ios::binary) << content;
    return (dir_ / name).string();
  }

  // Runs `supportd bench ARGS`.
  static Command bench(std::vector<std::string> args) {
    args.insert(args.begin(), "bench");
    return supportd::testing::run_supportd(args);
  }

  fs::path dir_;
};

// A minimal report of version 1 with `requests` as given (JSON text).
std::string report(const std::string& version, const std::string& requests) {
  return "{\"version\": " + version + ", \"requests\": " + requests +
         ", \"ok\": 1, \"classes\": {\"all\": {\"requests\": 1}}}";
}

TEST_F(BenchCli, CompareTakesExactlyTwoReports) {
  const std::string a = write("a.json", report("1", "1"));
  Command c = bench({"--compare", a});
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_NE(c.err.find("--compare takes exactly two reports"), std::string::npos) << c.err;
  c = bench({"--compare", a, a, a});
  EXPECT_EQ(c.exit_code, 2) << c.err;
  EXPECT_NE(c.err.find("got 3"), std::string::npos) << c.err;
  c = bench({"--compare", a, a});
  EXPECT_EQ(c.exit_code, 0) << c.err;
}

TEST_F(BenchCli, CompareRefusesWrongTypesAndVersionsNamingTheFile) {
  const std::string good = write("good.json", report("1", "1"));
  const std::pair<std::string, std::string> bad[] = {
      {write("lots.json", report("1", "\"lots\"")), "requests is \"lots\""},
      {write("v99.json", report("99", "1")), "report version 99"},
      {write("none.json", "{\"requests\": 1, \"classes\": {}}"), "report version missing"},
      {dir_.string(), "is a directory"}};
  for (const auto& [file, why] : bad) {
    Command c = bench({"--compare", good, file});
    EXPECT_EQ(c.exit_code, 2) << file << "\n" << c.err;
    EXPECT_NE(c.err.find(file), std::string::npos) << c.err;
    EXPECT_NE(c.err.find(why), std::string::npos) << c.err;
  }
}

TEST_F(BenchCli, RefusesBoundsAndOutputsBeforeSendingAnyRequest) {
  const std::vector<std::string> target = {"--url", "http://127.0.0.1:1", "--model",
                                           "m",     "--no-progress",      "--no-poll"};
  const std::string missing_dir = (dir_ / "missing" / "r.json").string();
  const std::string trace = write("trace.txt", "0\n0.5\n");
  const std::pair<std::vector<std::string>, std::string> bad[] = {
      {{"--slo-ttft", "0"}, "--slo-ttft"},
      {{"--slo-e2e", "0"}, "--slo-e2e"},
      {{"--slo-ttft", "nan"}, "--slo-ttft"},
      {{"--requests", "0"}, "--requests"},
      {{"--duration", "0"}, "--duration"},
      {{"--system-prompt-tokens", "-1"}, "--system-prompt-tokens"},
      {{"--json", ""}, "--json: the file name is empty"},
      {{"--json", missing_dir}, missing_dir},
      {{"--html", dir_.string()}, "is a directory"},
      {{"--record-tokens", (dir_ / "missing" / "t.csv").string()}, "--record-tokens"},
      {{"--json", (dir_ / "same").string(), "--html", (dir_ / "same").string()},
       "is also the file of --json"},
      {{"--trace", trace, "--json", trace}, "is also the file of --trace"}};
  for (const auto& [flags, expected] : bad) {
    std::vector<std::string> args = target;
    args.insert(args.end(), flags.begin(), flags.end());
    Command c = bench(args);
    EXPECT_EQ(c.exit_code, 2) << flags.front() << "\n" << c.err;
    EXPECT_NE(c.err.find(expected), std::string::npos) << flags.front() << "\n" << c.err;
    EXPECT_EQ(c.err.find("127.0.0.1:1"), std::string::npos) << "a request was sent: " << c.err;
  }
  EXPECT_EQ(fs::file_size(trace), 6u) << "the trace was overwritten";
}

TEST_F(BenchCli, SteadyDecodeFromADirectoryOrAnEmptyFileIsAnError) {
  const std::string empty = write("empty.csv", "");
  for (const std::string& file : {dir_.string(), empty}) {
    Command c = bench({"--steady-decode-from", file});
    EXPECT_EQ(c.exit_code, 2) << file << "\n" << c.err;
    EXPECT_NE(c.err.find(file), std::string::npos) << c.err;
  }
  Command c = bench({"--steady-decode-from", ""});
  EXPECT_NE(c.exit_code, 0) << c.out;
}

}  // namespace
}  // namespace supportd::bench
