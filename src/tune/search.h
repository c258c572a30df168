// The tuner's search: which serving settings to try, in which order, for how long, and what
// to recommend. Every combination of the values given is a candidate, beside the defaults.
// Successive halving: every candidate runs a short trial; the better half runs again for twice
// as long, and so on until the few to confirm (and one more) remain. Then the best few that are
// not the defaults are confirmed against the defaults on longer runs, in interleaved rounds,
// and one is recommended only when it beats the defaults beyond the noise (confirmation.h).
// Trials run in a fixed order, so the same workload seed gives the same search. The trial itself
// (start a server, load it, measure goodput) is the caller's: tune_command.cpp runs real servers;
// the search only decides. Thread-safety: pure logic on the caller's thread.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "tune/confirmation.h"

namespace supportd::tune {

// One serve option set to one value.
struct Setting {
  std::string name;   // the option ("parallel": the flag --parallel)
  std::string key;    // its key in serve's config file ("engine.parallel")
  std::string value;  // as the command line takes it ("8")
};

// One option and the values to try.
struct Dimension {
  std::string name, key;
  std::vector<std::string> values;
};

struct Candidate {
  std::vector<Setting> settings;  // empty: serve's defaults

  bool defaults() const { return settings.empty(); }
  std::string label() const;               // "parallel=8 step-tokens=256", or "defaults"
  std::vector<std::string> flags() const;  // {"--parallel", "8", ...}
};

// The candidates, the defaults first, then every combination (the first dimension varying
// slowest). kInvalidArgument when a dimension has no values, or more than `max_candidates`
// combinations would be tried.
Result<std::vector<Candidate>> combinations(const std::vector<Dimension>& dimensions,
                                            std::size_t max_candidates);

struct SearchOptions {
  double first_trial_s = 20;    // the first round's trial length; doubled each later round
  double confirm_trial_s = 0;   // the confirmation runs' length (0: twice the last round's)
  int repeats = 4;              // confirmation rounds: one run of the defaults and of each
  std::size_t confirm = 2;      // candidates confirmed against the defaults (the best few)
  double min_gain = 0.03;       // a recommendation's worst run beats the defaults' best by this
  double budget_s = 1200;       // no trial starts that would end after this (an estimate)
  double trial_overhead_s = 5;  // per trial: starting and stopping the server (for the budget)
};

struct Trial {
  std::size_t candidate = 0;  // index into SearchResult::candidates
  int round = 0;              // 0, 1, ... halving rounds; -1: confirmation
  double seconds = 0;
  std::optional<double> goodput;  // requests per second within the SLO; none: the trial failed
  std::string error;              // why it failed
};

// One candidate confirmed against the defaults: its runs, round by round, and the verdict.
struct Confirmed {
  std::size_t candidate = 0;  // index into SearchResult::candidates
  Runs runs;
  Comparison comparison;
};

struct SearchResult {
  std::vector<Candidate> candidates;
  std::vector<Trial> trials;         // in the order run
  int rounds = 0;                    // halving rounds run
  NoiseRule rule;                    // the rule the confirmation was judged by
  Runs default_runs;                 // the defaults' confirmation runs, round by round
  std::vector<Confirmed> confirmed;  // the best few, best first by the halving
  // The recommendation; or, when none beat the defaults, the confirmed candidate with the most
  // mean goodput (shown with why it was not recommended); none when nothing was confirmed.
  std::optional<std::size_t> best;
  bool recommended = false;     // the best beat the defaults beyond the noise
  bool budget_ran_out = false;  // trials were skipped for the budget

  // The candidate's goodput in `round` (none: not run there, or failed).
  std::optional<double> goodput(std::size_t candidate, int round) const;
  // The confirmation of `best` (none when there is no best).
  const Confirmed* best_confirmed() const;
};

// The trial: run `candidate` for `seconds`; its goodput, or why it could not be measured.
using RunTrial = std::function<Result<double>(const Candidate& candidate, double seconds)>;
// Told after every trial: it, trials done, trials planned.
using TrialDone = std::function<void(const Trial& trial, int done, int planned)>;

// The trials the search plans for `candidates` candidates (for a progress bar).
int planned_trials(std::size_t candidates, const SearchOptions& options);

// REQUIRES: candidates[0] is the defaults; options' lengths > 0, repeats >= 1, confirm >= 1,
// min_gain >= 0.
SearchResult search(std::vector<Candidate> candidates, const SearchOptions& options,
                    const RunTrial& run, const TrialDone& done);

}  // namespace supportd::tune
