// The tuner's reports: the table shows every candidate and trial (failures with their reason)
// and the verdict; the JSON holds the same; the TOML of a recommendation is read back by
// serve's own options (--config) into the settings tried.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "../app/command_line.h"
#include "app/serve_config.h"
#include "tune/tune_report.h"

namespace supportd::tune {
namespace {

namespace json = boost::json;

// serve's config key of its option `name`, as `supportd tune` looks it up.
std::string serve_key(const std::string& name) {
  CLI::App app;
  app::ServeConfig config;
  app::ServeOptions options(app, config);
  for (const app::DeclaredOption* option : options.table().options())
    if (option->name() == name) return option->key();
  return "";
}

// A search of the defaults and two candidates: one failed, one confirmed better.
SearchResult finished_search() {
  SearchResult r;
  const std::string parallel = serve_key("parallel"), layout = serve_key("kv-layout");
  r.candidates = {Candidate{},
                  Candidate{{{"parallel", parallel, "2"}, {"kv-layout", layout, "unified"}}},
                  Candidate{{{"parallel", parallel, "3"}, {"kv-layout", layout, "per-sequence"}}}};
  r.trials = {{0, 0, 10, 2.0, ""},
              {1, 0, 10, std::nullopt, "supportd serve exited before it was ready"},
              {2, 0, 10, 3.0, ""},
              {0, -1, 20, 2.0, ""},
              {2, -1, 20, 3.5, ""}};
  r.rounds = 1;
  r.best = 2;
  r.best_runs = {3.5};
  r.default_runs = {2.0};
  r.gain = 0.75;
  r.recommended = true;
  return r;
}

const TuneContext kContext{"poisson 4/s", "TTFT <= 1000 ms", "supportd tune ..."};

TEST(TuneReport, TextShowsEveryCandidateTheFailureAndTheVerdict) {
  const std::string text = tune_text(finished_search(), kContext);
  EXPECT_NE(text.find("defaults"), std::string::npos) << text;
  EXPECT_NE(text.find("parallel=2 kv-layout=unified"), std::string::npos) << text;
  EXPECT_NE(text.find("failed: parallel=2 kv-layout=unified (10 s): supportd serve exited"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("recommended: parallel=3 kv-layout=per-sequence (+75.0% goodput"),
            std::string::npos)
      << text;
}

TEST(TuneReport, JsonHoldsTheTrialsAndTheVerdict) {
  const json::object o = json::parse(tune_json(finished_search(), kContext)).as_object();
  EXPECT_EQ(o.at("tool").as_string(), "supportd tune");
  EXPECT_EQ(o.at("best").as_string(), "parallel=3 kv-layout=per-sequence");
  EXPECT_TRUE(o.at("recommended").as_bool());
  EXPECT_DOUBLE_EQ(o.at("gain").as_double(), 0.75);
  const json::array& candidates = o.at("candidates").as_array();
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_TRUE(candidates[1].at("trials").as_array()[0].at("goodput").is_null());
  EXPECT_EQ(candidates[2].at("settings").at("parallel").as_string(), "3");
  EXPECT_EQ(candidates[2].at("trials").as_array().size(), 2u);
}

TEST(TuneReport, TheTomlIsServesConfigWithTheSettingsTried) {
  const std::string toml = tune_toml(finished_search(), kContext);
  EXPECT_NE(toml.find("parallel = 3\n"), std::string::npos) << toml;  // a number, bare
  EXPECT_NE(toml.find("kv-layout = \"per-sequence\"\n"), std::string::npos) << toml;  // a string
  testing::ConfigFile file(toml);
  CLI::App app;
  app::ServeConfig config;
  app::ServeOptions options(app, config);
  ASSERT_TRUE(testing::parse_command_line(app, {"--config", file.path()}).ok());
  const Status status = options.finish();
  ASSERT_TRUE(status.ok()) << status.error().message << "\n" << toml;
  EXPECT_EQ(config.engine.parallel, 3);
  EXPECT_EQ(config.engine.kv_layout, engine::llama::EngineOptions::KvLayout::kPerSequence);
}

}  // namespace
}  // namespace supportd::tune
