// The tuner's reports: text table, JSON and the TOML of the recommendation (tune_report.h).
#include "tune/tune_report.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>
#include <map>
#include <numeric>

namespace supportd::tune {
namespace {

namespace json = boost::json;

double mean(const std::vector<double>& values) {
  return values.empty() ? 0
                        : std::accumulate(values.begin(), values.end(), 0.0) /
                              static_cast<double>(values.size());
}

std::string runs_text(const std::vector<double>& runs) {
  std::string text;
  for (double r : runs)
    text += fmt::format("{}{:.3f}", text.empty() ? "" : ", ", r);
  return text;
}

std::string verdict(const SearchResult& r) {
  if (!r.best) return "no candidate other than the defaults could be measured: the defaults stand";
  const std::string label = r.candidates[*r.best].label();
  if (r.recommended) {
    return fmt::format(
        "recommended: {} ({:+.1f}% goodput over the defaults; its worst run beat "
        "their best)",
        label, *r.gain * 100);
  }
  return fmt::format(
      "not recommended: {} did not beat the defaults beyond the noise{}; the defaults stand", label,
      r.gain ? fmt::format(" ({:+.1f}% on average)", *r.gain * 100) : std::string());
}

// A TOML value: numbers and booleans bare, anything else as a basic string.
std::string toml_value(const std::string& value) {
  if (value == "true" || value == "false") return value;
  double number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error == std::errc() && end == value.data() + value.size()) return value;
  std::string quoted = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace

std::string tune_text(const SearchResult& r, const TuneContext& context) {
  std::string out = fmt::format("workload: {}\nSLO: {}\n\n", context.workload, context.slo);
  out += fmt::format("{:<40}", "candidate (goodput, requests/s in SLO)");
  for (int round = 0; round < r.rounds; ++round)
    out += fmt::format(" {:>10}", fmt::format("round {}", round + 1));
  out += "\n";
  for (std::size_t c = 0; c < r.candidates.size(); ++c) {
    out += fmt::format("{:<40}", r.candidates[c].label());
    for (int round = 0; round < r.rounds; ++round) {
      bool ran = false;
      for (const Trial& t : r.trials)
        ran = ran || (t.candidate == c && t.round == round);
      const auto goodput = r.goodput(c, round);
      out += fmt::format(
          " {:>10}", goodput ? fmt::format("{:.3f}", *goodput) : std::string(ran ? "failed" : "-"));
    }
    out += "\n";
  }
  for (const Trial& t : r.trials) {
    if (!t.goodput) {
      out += fmt::format("failed: {} ({:.0f} s): {}\n", r.candidates[t.candidate].label(),
                         t.seconds, t.error);
    }
  }
  if (r.best) {
    out += fmt::format("\nconfirmation ({} runs each, interleaved):\n", r.best_runs.size());
    out += fmt::format("  defaults  {:.3f} mean: {}\n", mean(r.default_runs),
                       runs_text(r.default_runs));
    out += fmt::format("  best      {:.3f} mean: {}  ({})\n", mean(r.best_runs),
                       runs_text(r.best_runs), r.candidates[*r.best].label());
  }
  if (r.budget_ran_out) out += "\nthe time budget ran out: some trials were not run\n";
  return out + "\n" + verdict(r) + "\n";
}

std::string tune_json(const SearchResult& r, const TuneContext& context) {
  json::array candidates;
  for (std::size_t c = 0; c < r.candidates.size(); ++c) {
    json::object settings;
    for (const Setting& s : r.candidates[c].settings)
      settings[s.name] = s.value;
    json::array trials;
    for (const Trial& t : r.trials) {
      if (t.candidate != c) continue;
      json::object o{{"round", t.round}, {"seconds", t.seconds}};
      o["goodput"] = t.goodput ? json::value(*t.goodput) : json::value(nullptr);
      if (!t.goodput) o["error"] = t.error;
      trials.push_back(std::move(o));
    }
    candidates.push_back(json::object{{"label", r.candidates[c].label()},
                                      {"defaults", r.candidates[c].defaults()},
                                      {"settings", std::move(settings)},
                                      {"trials", std::move(trials)}});
  }
  json::object o{{"tool", "supportd tune"},
                 {"workload", context.workload},
                 {"slo", context.slo},
                 {"command", context.command},
                 {"rounds", r.rounds},
                 {"candidates", std::move(candidates)},
                 {"budget_ran_out", r.budget_ran_out},
                 {"recommended", r.recommended},
                 {"verdict", verdict(r)}};
  o["best"] = r.best ? json::value(r.candidates[*r.best].label()) : json::value(nullptr);
  o["gain"] = r.gain ? json::value(*r.gain) : json::value(nullptr);
  o["best_runs"] = json::value_from(r.best_runs);
  o["default_runs"] = json::value_from(r.default_runs);
  return json::serialize(o) + "\n";
}

std::string tune_toml(const SearchResult& r, const TuneContext& context) {
  std::string out = "# supportd tune: " + verdict(r) + "\n";
  out += fmt::format("# goodput (requests/s in SLO): {:.3f} against {:.3f} with the defaults\n",
                     mean(r.best_runs), mean(r.default_runs));
  out += "# workload: " + context.workload + "; SLO: " + context.slo + "\n";
  out += "# " + context.command + "\n";
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> sections;
  for (const Setting& s : r.candidates[*r.best].settings) {
    const std::size_t dot = s.key.find('.');
    sections[s.key.substr(0, dot)].emplace_back(s.key.substr(dot + 1), toml_value(s.value));
  }
  for (const auto& [section, entries] : sections) {
    out += "\n[" + section + "]\n";
    for (const auto& [name, value] : entries)
      out += name + " = " + value + "\n";
  }
  return out;
}

}  // namespace supportd::tune
