// The tuner's search over trials whose goodput the test decides (the search's contract: the
// caller runs the trial): candidates, successive halving, confirmation against the defaults,
// the verdict with noise, failed trials, the budget, and the same search for the same results.
#include <gtest/gtest.h>

#include <map>

#include "tune/search.h"

namespace supportd::tune {
namespace {

std::vector<Dimension> two_dimensions() {
  return {{"parallel", "engine.parallel", {"2", "4"}},
          {"step-tokens", "engine.step-tokens", {"256", "512", "1024"}}};
}

TEST(Combinations, DefaultsFirstThenEveryCombination) {
  auto c = combinations(two_dimensions(), 64);
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_EQ(c->size(), 7u);
  EXPECT_TRUE((*c)[0].defaults());
  EXPECT_EQ((*c)[0].label(), "defaults");
  EXPECT_EQ((*c)[1].label(), "parallel=2 step-tokens=256");
  EXPECT_EQ((*c)[3].label(), "parallel=2 step-tokens=1024");
  EXPECT_EQ((*c)[4].label(), "parallel=4 step-tokens=256");
  EXPECT_EQ((*c)[6].label(), "parallel=4 step-tokens=1024");
  EXPECT_EQ((*c)[6].flags(),
            (std::vector<std::string>{"--parallel", "4", "--step-tokens", "1024"}));
  EXPECT_EQ((*c)[6].settings[1].key, "engine.step-tokens");
}

TEST(Combinations, TooManyOrNoValuesAreRefused) {
  auto many = combinations(two_dimensions(), 5);
  ASSERT_FALSE(many);
  EXPECT_NE(many.error().message.find("more than 5 combinations"), std::string::npos);
  auto none = combinations({{"parallel", "engine.parallel", {}}}, 64);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("parallel"), std::string::npos);
}

// Trials whose goodput is looked up by label (and by run, for the confirmation's noise).
struct Table {
  std::map<std::string, std::vector<double>> goodput;  // label -> successive results
  std::map<std::string, int> runs;
  std::vector<std::pair<std::string, double>> log;  // label, seconds, in order

  RunTrial trial() {
    return [this](const Candidate& c, double seconds) -> Result<double> {
      const std::string label = c.label();
      log.emplace_back(label, seconds);
      const std::vector<double>& results = goodput.at(label);
      const int run = runs[label]++;
      const double g = results[std::min<std::size_t>(run, results.size() - 1)];
      if (g < 0) return Error::make(ErrorCode::kUnavailable, "the server did not start");
      return g;
    };
  }
};

const TrialDone kQuiet = [](const Trial&, int, int) {};

SearchOptions fast(int repeats = 2, std::size_t confirm = 2) {
  SearchOptions o;
  o.first_trial_s = 10;
  o.repeats = repeats;
  o.confirm = confirm;
  o.budget_s = 1e9;
  return o;
}

std::string label(const SearchResult& r, std::size_t confirmed) {
  return r.candidates[r.confirmed.at(confirmed).candidate].label();
}

TEST(Search, HalvesThenConfirmsTheBestFewAgainstTheDefaults) {
  auto candidates = combinations(two_dimensions(), 64);
  ASSERT_TRUE(candidates);
  Table t;
  t.goodput = {{"defaults", {3}},
               {"parallel=2 step-tokens=256", {1}},
               {"parallel=2 step-tokens=512", {2}},
               {"parallel=2 step-tokens=1024", {2.5}},
               {"parallel=4 step-tokens=256", {4}},
               {"parallel=4 step-tokens=512", {5}},
               {"parallel=4 step-tokens=1024", {4.5}}};
  int calls = 0, last_planned = 0;
  const SearchResult r =
      search(*candidates, fast(4, 2), t.trial(), [&](const Trial&, int done, int planned) {
        EXPECT_EQ(done, ++calls);
        last_planned = planned;
      });
  // 7 candidates, then the better 4, then the 3 (the two to confirm and one more); then 4
  // confirmation rounds of the defaults and the best two.
  EXPECT_EQ(r.rounds, 3);
  ASSERT_EQ(t.log.size(), 7u + 4 + 3 + 4 * 3);
  EXPECT_EQ(last_planned, static_cast<int>(t.log.size()));
  EXPECT_EQ(planned_trials(7, fast(4, 2)), static_cast<int>(t.log.size()));
  EXPECT_EQ(t.log[7].second, 20);  // the second round runs twice as long
  EXPECT_EQ(t.log[11].second, 40);
  EXPECT_EQ(r.goodput(6, 1), 4.5);
  EXPECT_FALSE(r.goodput(1, 1));  // the worst did not go on
  EXPECT_EQ(r.goodput(0, 1), 3);  // the defaults did (4th best)
  EXPECT_FALSE(r.goodput(0, 2));  // but not to the third round
  ASSERT_EQ(r.confirmed.size(), 2u);
  EXPECT_EQ(label(r, 0), "parallel=4 step-tokens=512");
  EXPECT_EQ(label(r, 1), "parallel=4 step-tokens=1024");
  // The confirmation rounds: the defaults, then the two, twice the last round's length.
  for (std::size_t round = 0; round < 4; ++round) {
    EXPECT_EQ(t.log[14 + 3 * round], (std::pair<std::string, double>{"defaults", 80}));
    EXPECT_EQ(t.log[15 + 3 * round].first, "parallel=4 step-tokens=512");
    EXPECT_EQ(t.log[16 + 3 * round].first, "parallel=4 step-tokens=1024");
  }
  EXPECT_EQ(r.default_runs, (Runs{3, 3, 3, 3}));
  EXPECT_EQ(r.confirmed[0].runs, (Runs{5, 5, 5, 5}));
  EXPECT_EQ(r.rule.compared, 2);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.candidates[*r.best].label(), "parallel=4 step-tokens=512");  // the most goodput
  EXPECT_TRUE(r.recommended);
  ASSERT_NE(r.best_confirmed(), nullptr);
  EXPECT_DOUBLE_EQ(*r.best_confirmed()->comparison.gain, 5.0 / 3 - 1);
  EXPECT_FALSE(r.budget_ran_out);
}

TEST(Search, OfThoseThatBeatTheDefaultsTheSteadyOneIsRecommendedOverANoisyBetterMean) {
  Table t;
  t.goodput = {{"defaults", {10}},
               {"parallel=2", {12}},
               {"parallel=4", {20, 20, 20, 20, 9}}};  // round 1, then four confirmation runs
  auto candidates = combinations({{"parallel", "engine.parallel", {"2", "4"}}}, 64);
  ASSERT_TRUE(candidates);
  const SearchResult r = search(*candidates, fast(4, 2), t.trial(), kQuiet);
  ASSERT_EQ(r.confirmed.size(), 2u);
  EXPECT_EQ(label(r, 0), "parallel=4");           // the better first round
  EXPECT_FALSE(r.confirmed[0].comparison.beats);  // 9 in one round
  EXPECT_TRUE(r.confirmed[1].comparison.beats);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.candidates[*r.best].label(), "parallel=2");
  EXPECT_TRUE(r.recommended);
}

TEST(Search, TooFewRepeatsNeverRecommend) {
  Table t;
  t.goodput = {{"defaults", {1}}, {"parallel=8", {100}}};
  auto candidates = combinations({{"parallel", "engine.parallel", {"8"}}}, 64);
  ASSERT_TRUE(candidates);
  const SearchResult two = search(*candidates, fast(2), t.trial(), kQuiet);
  ASSERT_TRUE(two.best);
  EXPECT_FALSE(two.recommended);
  Table again;
  again.goodput = t.goodput;
  EXPECT_TRUE(search(*candidates, fast(3), again.trial(), kQuiet).recommended);
}

TEST(Search, AGainWithinTheNoiseIsNotRecommended) {
  // The best's worst confirmation run (2.9) is below the defaults' best (3.1): no
  // recommendation, though its mean is higher.
  Table t;
  t.goodput = {{"defaults", {3, 3, 2.8, 3.1}}, {"parallel=8", {4, 4, 4.5, 2.9}}};
  auto candidates = combinations({{"parallel", "engine.parallel", {"8"}}}, 64);
  ASSERT_TRUE(candidates);
  const SearchResult r = search(*candidates, fast(3), t.trial(), kQuiet);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.rounds, 1);
  ASSERT_NE(r.best_confirmed(), nullptr);
  EXPECT_EQ(r.best_confirmed()->runs, (Runs{4, 4.5, 2.9}));
  EXPECT_FALSE(r.recommended);
  ASSERT_TRUE(r.best_confirmed()->comparison.gain);
  EXPECT_GT(*r.best_confirmed()->comparison.gain, 0);
}

TEST(Search, DefaultsThatWinAreNotReplaced) {
  Table t;
  t.goodput = {{"defaults", {6}}, {"parallel=2", {3}}, {"parallel=4", {4}}};
  auto candidates = combinations({{"parallel", "engine.parallel", {"2", "4"}}}, 64);
  ASSERT_TRUE(candidates);
  const SearchResult r = search(*candidates, fast(4), t.trial(), kQuiet);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.candidates[*r.best].label(), "parallel=4");
  EXPECT_FALSE(r.recommended);
  EXPECT_LT(*r.best_confirmed()->comparison.gain, 0);
}

TEST(Search, FailedTrialsDropOutAndAreKept) {
  Table t;
  t.goodput = {{"defaults", {2}}, {"parallel=2", {-1}}, {"parallel=4", {3}}};
  auto candidates = combinations({{"parallel", "engine.parallel", {"2", "4"}}}, 64);
  ASSERT_TRUE(candidates);
  const SearchResult r = search(*candidates, fast(3), t.trial(), kQuiet);
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.candidates[*r.best].label(), "parallel=4");
  EXPECT_EQ(r.confirmed.size(), 1u);  // the failed one is not confirmed
  EXPECT_EQ(r.rule.compared, 1);
  EXPECT_TRUE(r.recommended);
  bool failure_kept = false;
  for (const Trial& trial : r.trials)
    failure_kept = failure_kept || (trial.candidate == 1 && !trial.goodput &&
                                    trial.error == "the server did not start");
  EXPECT_TRUE(failure_kept);
}

TEST(Search, AFailedConfirmationRunBlocksTheRecommendation) {
  Table t;
  t.goodput = {{"defaults", {2}}, {"parallel=4", {3, 3, -1, 3}}};
  auto candidates = combinations({{"parallel", "engine.parallel", {"4"}}}, 64);
  ASSERT_TRUE(candidates);
  const SearchResult r = search(*candidates, fast(3), t.trial(), kQuiet);
  ASSERT_NE(r.best_confirmed(), nullptr);
  EXPECT_EQ(r.best_confirmed()->runs, (Runs{3, std::nullopt, 3}));
  EXPECT_FALSE(r.recommended);
}

TEST(Search, TheBudgetStopsTrialsBeforeTheyStart) {
  Table t;
  t.goodput = {{"defaults", {2}}, {"parallel=2", {3}}};
  auto candidates = combinations({{"parallel", "engine.parallel", {"2"}}}, 64);
  ASSERT_TRUE(candidates);
  SearchOptions o = fast();
  o.budget_s = 12;  // one 10 s trial (+ the overhead) does not fit
  const SearchResult r = search(*candidates, o, t.trial(), kQuiet);
  EXPECT_TRUE(t.log.empty());
  EXPECT_TRUE(r.budget_ran_out);
  EXPECT_FALSE(r.best);
  EXPECT_FALSE(r.recommended);
}

TEST(Search, SameResultsSameSearch) {
  auto candidates = combinations(two_dimensions(), 64);
  ASSERT_TRUE(candidates);
  auto run_once = [&] {
    Table t;
    for (const Candidate& c : *candidates)
      t.goodput[c.label()] = {static_cast<double>(c.label().size() % 5)};  // ties included
    search(*candidates, fast(), t.trial(), kQuiet);
    return t.log;
  };
  EXPECT_EQ(run_once(), run_once());
}

}  // namespace
}  // namespace supportd::tune
