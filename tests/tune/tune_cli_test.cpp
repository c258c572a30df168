// `supportd tune` through the built binary: a real search on a synthesized model (the defaults
// and two settings of --parallel, short trials, one confirmation run each), its table, JSON and
// verdict, the TOML when it recommends; bad input refused with exit code 2 before any server
// starts; --help. Bounded in time by the trial lengths and --budget; no assertion on which
// setting wins (that is the machine's).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../kb/test_dir.h"
#include "supportd_command.h"
#include "test_model.h"

namespace supportd::tune {
namespace {

namespace json = boost::json;
using Command = supportd::testing::CommandRun;

Command tune(std::vector<std::string> args) {
  args.insert(args.begin(), "tune");
  return supportd::testing::run_supportd(args);
}

std::string read(const std::string& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

class TuneCli : public ::testing::Test {
 protected:
  kb::testing::TestDir dir_{"tune"};
  const std::string model_ = supportd::testing::synthesized_model("tiny", "q8_0");
  const std::string out_ = dir_.path() + "/tuned.toml";
  const std::string json_ = dir_.path() + "/tune.json";
};

TEST_F(TuneCli, SearchesReportsAndRecommendsOnlyWhatBeatsTheDefaults) {
  const Command c = tune({"--model",
                          model_,
                          "--search",
                          "parallel=1,2",
                          "--fixed",
                          "threads=1",
                          "--trial-seconds",
                          "2",
                          "--confirm-seconds",
                          "2",
                          "--repeats",
                          "1",
                          "--budget",
                          "3m",
                          "--out",
                          out_,
                          "--json",
                          json_,
                          "--",
                          "--concurrency",
                          "2",
                          "--endpoint",
                          "completions",
                          "--prompt-tokens",
                          "8",
                          "--output-tokens",
                          "8",
                          "--slo-ttft",
                          "60000"});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  for (const char* line : {"defaults", "parallel=1", "parallel=2", "confirmation", "round 1"})
    EXPECT_NE(c.out.find(line), std::string::npos) << line << "\n" << c.out;
  EXPECT_NE(c.err.find("[1/"), std::string::npos) << c.err;  // progress, trial by trial

  const json::object o = json::parse(read(json_)).as_object();
  const json::array& candidates = o.at("candidates").as_array();
  ASSERT_EQ(candidates.size(), 3u);
  for (const json::value& candidate : candidates) {
    const json::array& trials = candidate.at("trials").as_array();
    ASSERT_FALSE(trials.empty()) << candidate;  // every candidate ran the first round
    EXPECT_GT(trials[0].at("goodput").to_number<double>(), 0) << candidate;
  }
  ASSERT_TRUE(o.at("best").is_string());
  ASSERT_EQ(o.at("best_runs").as_array().size(), 1u);
  ASSERT_EQ(o.at("default_runs").as_array().size(), 1u);
  const bool recommended = o.at("recommended").as_bool();
  // Recommended exactly when the best's run beat the defaults' run; the TOML only then.
  EXPECT_EQ(recommended, o.at("best_runs").as_array()[0].to_number<double>() >
                             o.at("default_runs").as_array()[0].to_number<double>());
  EXPECT_EQ(std::filesystem::exists(out_), recommended);
  if (recommended) {
    const std::string toml = read(out_);
    EXPECT_NE(toml.find("[engine]\nparallel = "), std::string::npos) << toml;
    EXPECT_NE(c.out.find("recommended: parallel="), std::string::npos) << c.out;
  } else {
    EXPECT_NE(c.out.find("the defaults stand"), std::string::npos) << c.out;
  }
}

TEST_F(TuneCli, BadInputExitsTwoBeforeAnyServerStarts) {
  const std::vector<std::string> load{"--", "--concurrency", "1"};
  auto with = [&](std::vector<std::string> args, const std::vector<std::string>& tail) {
    args.insert(args.end(), tail.begin(), tail.end());
    return args;
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {with({"--search", "parallel=1,2"}, load), "--model FILE is needed"},
      {with({"--model", model_}, load), "--search NAME=V1,V2"},
      {with({"--model", model_, "--search", "paralel=1"}, load),
       "'paralel' is not an option of supportd serve"},
      {with({"--model", model_, "--search", "parallel=0,2"}, load), "--parallel"},
      {with({"--model", model_, "--search", "parallel"}, load), "expected NAME=VALUE"},
      {with({"--model", model_, "--search", "parallel=2,,4"}, load), "an empty value"},
      {with({"--model", model_, "--search", "port=1,2"}, load), "tune sets --port itself"},
      {with({"--model", model_, "--search", "kv-layout=diagonal"}, load), "--kv-layout"},
      {with({"--model", model_, "--search", "parallel=2", "--fixed", "threads=-3"}, load),
       "--threads"},
      {with({"--model", dir_.path() + "/missing.gguf", "--search", "parallel=2"}, load),
       "missing.gguf"},
      {with({"--model", model_, "--search", "parallel=2", "--budget", "soon"}, load),
       "--budget soon"},
      {with({"--model", model_, "--search", "parallel=2", "--repeats", "0"}, load), "--repeats"},
      {with({"--model", model_, "--search", "parallel=2", "--trial-seconds", "0"}, load),
       "--trial-seconds"},
      {with({"--model", model_, "--search", "parallel=2", "--out", dir_.path()}, load),
       "is a directory"},
      {{"--model", model_, "--search", "parallel=2"}, "the workload needs a load"},
      {{"--model", model_, "--search", "parallel=2", "--", "--rate", "1", "--url", "http://x"},
       "is tune's to set"},
      {{"--model", model_, "--search", "parallel=2", "--", "--rate", "-1"}, "--rate"},
      {{"--model", model_, "--search", "parallel=2", "--", "--rate", "1", "--bogus"},
       "the workload"}};
  for (const auto& [args, why] : cases) {
    const Command c = tune(args);
    std::string line;
    for (const std::string& a : args)
      line += a + " ";
    EXPECT_EQ(c.exit_code, 2) << line << "\n" << c.out << c.err;
    EXPECT_NE(c.err.find(why), std::string::npos) << line << "\n" << c.err;
    EXPECT_EQ(c.err.find("tuning:"), std::string::npos) << line;  // nothing was started
  }
}

TEST_F(TuneCli, Help) {
  const Command c = tune({"--help"});
  EXPECT_EQ(c.exit_code, 0);
  for (const char* flag : {"--model", "--search", "--fixed", "--trial-seconds", "--repeats",
                           "--budget", "--out", "--json", "bench flags"})
    EXPECT_NE(c.out.find(flag), std::string::npos) << flag;
}

}  // namespace
}  // namespace supportd::tune
