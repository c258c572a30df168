// The tuner's search: which serving settings to try, in which order, for how long, and what
// to recommend. Every combination of the values given is a candidate, beside the defaults.
// Successive halving: every candidate runs a short trial; the better half runs again for twice
// as long, and so on until two remain. Then the best is confirmed against the defaults on
// longer runs, interleaved and repeated, and recommended only when its worst run beats the
// defaults' best (a gain beyond the noise). Trials run in a fixed order, so the same workload
// seed gives the same search. The trial itself (start a server, load it, measure goodput) is
// the caller's: tune_command.cpp runs real servers; the search only decides.
// Thread-safety: pure logic on the caller's thread.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"

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
  int repeats = 3;              // confirmation runs of the best and of the defaults, each
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

struct SearchResult {
  std::vector<Candidate> candidates;
  std::vector<Trial> trials;                    // in the order run
  int rounds = 0;                               // halving rounds run
  std::optional<std::size_t> best;              // the candidate confirmed against the defaults
  std::vector<double> best_runs, default_runs;  // confirmation goodputs
  std::optional<double> gain;   // mean(best_runs) / mean(default_runs) - 1, when both are known
  bool recommended = false;     // every confirmation run ok and min(best) > max(defaults)
  bool budget_ran_out = false;  // trials were skipped for the budget

  // The candidate's goodput in `round` (none: not run there, or failed).
  std::optional<double> goodput(std::size_t candidate, int round) const;
};

// The trial: run `candidate` for `seconds`; its goodput, or why it could not be measured.
using RunTrial = std::function<Result<double>(const Candidate& candidate, double seconds)>;
// Told after every trial: it, trials done, trials planned.
using TrialDone = std::function<void(const Trial& trial, int done, int planned)>;

// The trials the search plans for `candidates` candidates (for a progress bar).
int planned_trials(std::size_t candidates, int repeats);

// REQUIRES: candidates[0] is the defaults; options' lengths > 0, repeats >= 1.
SearchResult search(std::vector<Candidate> candidates, const SearchOptions& options,
                    const RunTrial& run, const TrialDone& done);

}  // namespace supportd::tune
