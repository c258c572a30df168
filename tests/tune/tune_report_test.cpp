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

// A search of the defaults and two candidates: one failed, one confirmed better over three
// rounds (its worst run, 3.5, beats the defaults' best, 2.1, by far more than 3%).
SearchResult finished_search() {
  SearchResult r;
  const std::string parallel = serve_key("parallel"), layout = serve_key("kv-layout");
  r.candidates = {Candidate{},
                  Candidate{{{"parallel", parallel, "2"}, {"kv-layout", layout, "unified"}}},
                  Candidate{{{"parallel", parallel, "3"}, {"kv-layout", layout, "per-sequence"}}}};
  r.trials = {{0, 0, 10, 2.0, ""},
              {1, 0, 10, std::nullopt, "supportd serve exited before it was ready"},
              {2, 0, 10, 3.0, ""}};
  r.rounds = 1;
  r.default_runs = {2.0, 2.1, 1.9};
  const Runs best_runs{3.5, 3.6, 3.7};
  for (std::size_t round = 0; round < 3; ++round) {
    r.trials.push_back({0, -1, 20, r.default_runs[round], ""});
    r.trials.push_back({2, -1, 20, best_runs[round], ""});
  }
  r.confirmed = {Confirmed{2, best_runs, compare(r.default_runs, best_runs, r.rule)}};
  r.best = 2;
  r.recommended = r.confirmed[0].comparison.beats;
  return r;
}

// The same search where the candidate's runs overlap the defaults': the defaults stand.
SearchResult search_within_the_noise() {
  SearchResult r = finished_search();
  r.confirmed[0].runs = {3.5, 2.0, 3.7};
  r.confirmed[0].comparison = compare(r.default_runs, r.confirmed[0].runs, r.rule);
  r.recommended = r.confirmed[0].comparison.beats;
  return r;
}

// What the search ran against, --fixed threads=1 included (a function: serve's option table is
// not to be built during static initialisation).
TuneContext context() {
  return {"poisson 4/s",
          "TTFT <= 1000 ms",
          "supportd tune ...",
          {{"threads", serve_key("threads"), "1"}}};
}

TEST(TuneReport, TextShowsEveryCandidateTheFailureAndTheVerdict) {
  const std::string text = tune_text(finished_search(), context());
  EXPECT_NE(text.find("defaults"), std::string::npos) << text;
  EXPECT_NE(text.find("parallel=2 kv-layout=unified"), std::string::npos) << text;
  EXPECT_NE(text.find("failed: parallel=2 kv-layout=unified (10 s): supportd serve exited"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("recommended: parallel=3 kv-layout=per-sequence: goodput +80.0% over the "
                      "defaults (+71.4% to +94.7% round by round); its worst run beat the "
                      "defaults' best by +66.7%"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("3.500, 3.600, 3.700"), std::string::npos) << text;  // every run
  EXPECT_NE(text.find("2.000, 2.100, 1.900"), std::string::npos) << text;
}

TEST(TuneReport, TextSaysTheDefaultsStandAndWhyWhenTheGainIsInsideTheNoise) {
  const std::string text = tune_text(search_within_the_noise(), context());
  EXPECT_NE(text.find("not recommended: parallel=3 kv-layout=per-sequence: its worst run "
                      "(2.000 good/s) did not beat the defaults' best (2.100) by 3%"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("the defaults stand"), std::string::npos) << text;
  EXPECT_EQ(text.find("recommended: parallel"), text.find("not recommended: parallel") + 4) << text;
}

TEST(TuneReport, JsonHoldsTheTrialsAndTheVerdict) {
  const json::object o = json::parse(tune_json(finished_search(), context())).as_object();
  EXPECT_EQ(o.at("tool").as_string(), "supportd tune");
  EXPECT_EQ(o.at("best").as_string(), "parallel=3 kv-layout=per-sequence");
  EXPECT_TRUE(o.at("recommended").as_bool());
  EXPECT_NEAR(o.at("gain").as_double(), 3.6 / 2.0 - 1, 1e-12);
  EXPECT_NEAR(o.at("gain_low").as_double(), 3.6 / 2.1 - 1, 1e-12);
  EXPECT_NEAR(o.at("gain_high").as_double(), 3.7 / 1.9 - 1, 1e-12);
  EXPECT_EQ(o.at("best_runs").as_array().size(), 3u);
  EXPECT_EQ(o.at("default_runs").as_array().size(), 3u);
  EXPECT_EQ(o.at("rule").at("rounds_needed").to_number<int>(), 3);
  EXPECT_DOUBLE_EQ(o.at("rule").at("min_gain").as_double(), 0.03);
  ASSERT_EQ(o.at("confirmed").as_array().size(), 1u);
  EXPECT_TRUE(o.at("confirmed").as_array()[0].at("beats_defaults").as_bool());
  const json::array& candidates = o.at("candidates").as_array();
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_TRUE(candidates[1].at("trials").as_array()[0].at("goodput").is_null());
  EXPECT_EQ(candidates[2].at("settings").at("parallel").as_string(), "3");
  EXPECT_EQ(candidates[2].at("trials").as_array().size(), 4u);
  const json::object noisy =
      json::parse(tune_json(search_within_the_noise(), context())).as_object();
  EXPECT_FALSE(noisy.at("recommended").as_bool());
  EXPECT_FALSE(noisy.at("confirmed").as_array()[0].at("beats_defaults").as_bool());
  EXPECT_NE(noisy.at("confirmed").as_array()[0].at("reason").as_string().find("did not beat"),
            std::string::npos);
}

TEST(TuneReport, TheTomlIsServesConfigWithTheSettingsTried) {
  const std::string toml = tune_toml(finished_search(), context());
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
  EXPECT_EQ(config.engine.threads, 1);  // --fixed: what every candidate was measured with
}

TEST(TuneReport, WithoutARecommendationTheTomlHoldsTheDefaultsAndClaimsNoGain) {
  const std::string toml = tune_toml(search_within_the_noise(), context());
  EXPECT_NE(toml.find("the defaults stand"), std::string::npos) << toml;
  EXPECT_NE(toml.find("claims no gain"), std::string::npos) << toml;
  EXPECT_EQ(toml.find("goodput (requests/s in SLO)"), std::string::npos) << toml;
  EXPECT_EQ(toml.find("\nparallel ="), std::string::npos) << toml;
  EXPECT_EQ(toml.find("\nkv-layout ="), std::string::npos) << toml;
  testing::ConfigFile file(toml);
  CLI::App app;
  app::ServeConfig config;
  app::ServeOptions options(app, config);
  ASSERT_TRUE(testing::parse_command_line(app, {"--config", file.path()}).ok());
  ASSERT_TRUE(options.finish().ok()) << toml;
  app::ServeConfig defaults;
  EXPECT_EQ(config.engine.parallel, defaults.engine.parallel);
  EXPECT_EQ(config.engine.threads, 1);
}

}  // namespace
}  // namespace supportd::tune
