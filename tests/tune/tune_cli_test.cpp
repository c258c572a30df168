// `supportd tune` through the built binary: a real search on a synthesized model (the defaults
// and two settings of --parallel, short trials, one confirmation round; a third setting, serve's
// default 16, runs only as the defaults), its table, JSON and
// verdict; one round cannot tell a gain from the noise, so whichever setting was faster nothing
// is recommended and the TOML holds the defaults (the --fixed settings) claiming no gain; bad
// input refused with exit code 2 before any server starts; --help. Bounded in time by the
// trial lengths and --budget; no assertion on which setting was faster (that is the machine's).
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

TEST_F(TuneCli, SearchesReportsAndNeverRecommendsOnOneRound) {
  const Command c = tune({"--model",
                          model_,
                          "--search",
                          "parallel=1,16,2",
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
  // serve's default --parallel runs once per round, as the defaults, not as a rival of theirs.
  EXPECT_NE(c.err.find("note: parallel=16 is serve's defaults"), std::string::npos) << c.err;
  EXPECT_EQ(c.out.find("parallel=16"), std::string::npos) << c.out;

  const json::object o = json::parse(read(json_)).as_object();
  const json::array& candidates = o.at("candidates").as_array();
  ASSERT_EQ(candidates.size(), 3u);
  for (const json::value& candidate : candidates) {
    const json::array& trials = candidate.at("trials").as_array();
    ASSERT_FALSE(trials.empty()) << candidate;  // every candidate ran the first round
    EXPECT_GT(trials[0].at("goodput").to_number<double>(), 0) << candidate;
  }
  ASSERT_TRUE(o.at("best").is_string());
  // Both candidates confirmed, each beside the defaults, one round each.
  ASSERT_EQ(o.at("confirmed").as_array().size(), 2u);
  ASSERT_EQ(o.at("best_runs").as_array().size(), 1u);
  ASSERT_EQ(o.at("default_runs").as_array().size(), 1u);
  EXPECT_FALSE(o.at("recommended").as_bool());
  EXPECT_NE(c.err.find("nothing will be recommended"), std::string::npos) << c.err;
  EXPECT_NE(c.out.find("cannot tell a gain from the noise"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("the defaults stand"), std::string::npos) << c.out;
  // The TOML: the defaults with what every candidate had (--fixed), no gain claimed.
  const std::string toml = read(out_);
  EXPECT_NE(toml.find("claims no gain"), std::string::npos) << toml;
  EXPECT_NE(toml.find("[engine]\nthreads = 1\n"), std::string::npos) << toml;
  EXPECT_EQ(toml.find("\nparallel ="), std::string::npos) << toml;
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
      {with({"--model", model_, "--search", "parallel=2,4,2"}, load), "2 is given twice"},
      {with({"--model", model_, "--search", "parallel=16"}, load),
       "parallel=16 is serve's defaults, so nothing else is left to try"},
      {with({"--model", model_, "--search", "parallel=2", "--search", "parallel=4"}, load),
       "--parallel is searched twice"},
      {with({"--model", model_, "--search", "parallel=2,4", "--fixed", "parallel=8"}, load),
       "--parallel is also given with --fixed"},
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
      {with({"--model", model_, "--search", "parallel=2", "--confirm-best", "0"}, load),
       "--confirm-best"},
      {with({"--model", model_, "--search", "parallel=2", "--min-gain", "-1"}, load), "--min-gain"},
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
  for (const char* flag :
       {"--model", "--search", "--fixed", "--trial-seconds", "--repeats", "--confirm-best",
        "--min-gain", "--budget", "--out", "--json", "bench flags"})
    EXPECT_NE(c.out.find(flag), std::string::npos) << flag;
}

}  // namespace
}  // namespace supportd::tune
