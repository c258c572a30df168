// Successive halving over serving settings, then confirmation against the defaults (search.h).
#include "tune/search.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <numeric>

namespace supportd::tune {
namespace {

using Clock = std::chrono::steady_clock;

// How many survive a round of `n` when `keep` are to remain: the better half (rounded up), but
// never fewer than `keep` while that many are left.
std::size_t survivors(std::size_t n, std::size_t keep) {
  return std::max<std::size_t>(std::min<std::size_t>(n, keep), (n + 1) / 2);
}

// The defaults and the candidates to confirm remain after the halving.
std::size_t finalists(const SearchOptions& options) {
  return options.confirm + 1;
}

class Runner {
 public:
  Runner(SearchResult& result, const SearchOptions& options, const RunTrial& run,
         const TrialDone& done, int planned)
      : result_(result), options_(options), run_(run), done_(done), planned_(planned) {}

  // Runs one trial unless the budget would be overrun; the trial, or none when skipped.
  const Trial* trial(std::size_t candidate, int round, double seconds) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - started_).count();
    if (elapsed + seconds + options_.trial_overhead_s > options_.budget_s) {
      result_.budget_ran_out = true;
      return nullptr;
    }
    Trial t{candidate, round, seconds, std::nullopt, ""};
    Result<double> goodput = run_(result_.candidates[candidate], seconds);
    if (goodput) {
      t.goodput = *goodput;
    } else {
      t.error = goodput.error().message;
    }
    result_.trials.push_back(std::move(t));
    done_(result_.trials.back(), static_cast<int>(result_.trials.size()), planned_);
    return &result_.trials.back();
  }

 private:
  SearchResult& result_;
  const SearchOptions& options_;
  const RunTrial& run_;
  const TrialDone& done_;
  int planned_;
  Clock::time_point started_ = Clock::now();
};

}  // namespace

std::string Candidate::label() const {
  if (settings.empty()) return "defaults";
  std::string text;
  for (const Setting& s : settings)
    text += (text.empty() ? "" : " ") + s.name + "=" + s.value;
  return text;
}

std::vector<std::string> Candidate::flags() const {
  std::vector<std::string> flags;
  for (const Setting& s : settings) {
    flags.push_back("--" + s.name);
    flags.push_back(s.value);
  }
  return flags;
}

Result<std::vector<Candidate>> combinations(const std::vector<Dimension>& dimensions,
                                            std::size_t max_candidates) {
  std::size_t count = 1;
  for (const Dimension& d : dimensions) {
    if (d.values.empty()) return Error::invalid("--search " + d.name + ": no values to try");
    count *= d.values.size();
    if (count > max_candidates) {
      return Error::invalid(fmt::format(
          "--search: more than {} combinations to try; give fewer values", max_candidates));
    }
  }
  std::vector<Candidate> out{Candidate{}};
  if (dimensions.empty()) return out;
  std::vector<std::size_t> index(dimensions.size(), 0);
  for (;;) {
    Candidate c;
    for (std::size_t d = 0; d < dimensions.size(); ++d)
      c.settings.push_back({dimensions[d].name, dimensions[d].key, dimensions[d].values[index[d]]});
    out.push_back(std::move(c));
    std::size_t d = dimensions.size();
    while (d > 0 && ++index[d - 1] == dimensions[d - 1].values.size())
      index[--d] = 0;
    if (d == 0) return out;
  }
}

std::optional<double> SearchResult::goodput(std::size_t candidate, int round) const {
  for (const Trial& t : trials)
    if (t.candidate == candidate && t.round == round) return t.goodput;
  return std::nullopt;
}

const Confirmed* SearchResult::best_confirmed() const {
  for (const Confirmed& c : confirmed)
    if (best && c.candidate == *best) return &c;
  return nullptr;
}

int planned_trials(std::size_t candidates, const SearchOptions& options) {
  int planned = 0;
  for (std::size_t n = candidates; n > 0;) {
    planned += static_cast<int>(n);
    if (n <= finalists(options)) break;
    n = survivors(n, finalists(options));
  }
  const std::size_t confirmed = std::min(options.confirm, candidates > 0 ? candidates - 1 : 0);
  return planned + static_cast<int>(confirmed + 1) * options.repeats;
}

SearchResult search(std::vector<Candidate> candidates, const SearchOptions& options,
                    const RunTrial& run, const TrialDone& done) {
  SearchResult result;
  result.candidates = std::move(candidates);
  Runner runner(result, options, run, done, planned_trials(result.candidates.size(), options));

  // Halving: every alive candidate once per round; the better half goes on.
  std::vector<std::size_t> alive(result.candidates.size());
  std::iota(alive.begin(), alive.end(), 0);
  double seconds = options.first_trial_s;
  for (int round = 0; !alive.empty(); ++round, seconds *= 2) {
    std::vector<std::pair<double, std::size_t>> ranked;
    for (std::size_t c : alive) {
      const Trial* t = runner.trial(c, round, seconds);
      if (t == nullptr) break;
      if (t->goodput) ranked.emplace_back(*t->goodput, c);
    }
    result.rounds = round + 1;
    // Stable order on ties: the earlier candidate first.
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    const bool last = alive.size() <= finalists(options) || result.budget_ran_out;
    alive.clear();
    for (const auto& [goodput, c] : ranked)
      alive.push_back(c);
    if (last) break;
    alive.resize(std::min(alive.size(), survivors(alive.size(), finalists(options))));
  }

  // The best few that are not the defaults, confirmed against them in interleaved rounds.
  for (std::size_t c : alive) {
    if (!result.candidates[c].defaults() && result.confirmed.size() < options.confirm)
      result.confirmed.push_back(Confirmed{c, {}, {}});
  }
  result.rule.min_gain = options.min_gain;
  result.rule.compared = static_cast<int>(std::max<std::size_t>(result.confirmed.size(), 1));
  if (result.confirmed.empty()) return result;
  const double confirm = options.confirm_trial_s > 0 ? options.confirm_trial_s : seconds * 2;
  auto run_once = [&](std::size_t candidate) -> std::optional<double> {
    const Trial* t = runner.trial(candidate, -1, confirm);
    return t != nullptr ? t->goodput : std::nullopt;
  };
  for (int r = 0; r < options.repeats; ++r) {
    result.default_runs.push_back(run_once(0));
    for (Confirmed& c : result.confirmed)
      c.runs.push_back(run_once(c.candidate));
  }

  // The recommendation: of those that beat the defaults, the most mean goodput (the earlier on
  // a tie); when none does, the most mean goodput is shown with why it was not recommended.
  const Confirmed* chosen = nullptr;
  for (Confirmed& c : result.confirmed) {
    c.comparison = compare(result.default_runs, c.runs, result.rule);
    const bool better =
        chosen == nullptr || (c.comparison.beats && !chosen->comparison.beats) ||
        (c.comparison.beats == chosen->comparison.beats && mean_of(c.runs) > mean_of(chosen->runs));
    if (better) chosen = &c;
  }
  result.best = chosen->candidate;
  result.recommended = chosen->comparison.beats;
  return result;
}

}  // namespace supportd::tune
