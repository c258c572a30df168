// The tuner's reports: text table, JSON and the TOML of the recommendation (tune_report.h).
#include "tune/tune_report.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <charconv>
#include <map>

namespace supportd::tune {
namespace {

namespace json = boost::json;

std::string runs_text(const Runs& runs) {
  std::string text;
  for (const std::optional<double>& r : runs)
    text += (text.empty() ? "" : ", ") + (r ? fmt::format("{:.3f}", *r) : std::string("failed"));
  return text;
}

std::string percent(const std::optional<double>& share) {
  return share ? fmt::format("{:+.1f}%", *share * 100) : std::string("n/a");
}

// "+12.0% over the defaults (+9.1% to +15.2% round by round)": the gain and its spread.
std::string gain_text(const Comparison& c) {
  if (!c.gain) return "no ratio to the defaults (they had no goodput)";
  std::string text = percent(c.gain) + " over the defaults";
  if (c.gain_low && c.gain_high)
    text += fmt::format(" ({} to {} round by round)", percent(c.gain_low), percent(c.gain_high));
  return text;
}

std::string verdict(const SearchResult& r) {
  const Confirmed* best = r.best_confirmed();
  if (best == nullptr)
    return "no candidate other than the defaults could be measured: the defaults stand";
  const std::string label = r.candidates[best->candidate].label();
  const Comparison& c = best->comparison;
  if (r.recommended) {
    return fmt::format(
        "recommended: {}: goodput {}; its worst run beat the defaults' best by {}, more than "
        "the {:g}% asked",
        label, gain_text(c), c.margin ? percent(c.margin) : std::string("all of it"),
        r.rule.min_gain * 100);
  }
  return fmt::format("not recommended: {}: {} (on average {}); the defaults stand", label, c.reason,
                     percent(c.gain));
}

json::value number_or_null(const std::optional<double>& value) {
  return value ? json::value(*value) : json::value(nullptr);
}

json::array runs_json(const Runs& runs) {
  json::array out;
  for (const std::optional<double>& run : runs)
    out.push_back(number_or_null(run));
  return out;
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
  if (!r.confirmed.empty()) {
    out += fmt::format(
        "\nconfirmation: {} rounds, interleaved (the defaults, then each candidate); a "
        "recommendation needs at least {} rounds and its worst run above the defaults' best by "
        "{:g}%\n",
        r.default_runs.size(), rounds_needed(r.rule), r.rule.min_gain * 100);
    out += fmt::format("  {:<38} mean {:.3f}: {}\n", "defaults", mean_of(r.default_runs),
                       runs_text(r.default_runs));
    for (const Confirmed& c : r.confirmed) {
      out += fmt::format("  {:<38} mean {:.3f}: {}\n", r.candidates[c.candidate].label(),
                         mean_of(c.runs), runs_text(c.runs));
      out += fmt::format("  {:<38} gain {}, worst over the defaults' best {}: {}\n", "",
                         gain_text(c.comparison), percent(c.comparison.margin),
                         c.comparison.beats ? "beats the defaults" : c.comparison.reason);
    }
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
  o["rule"] = json::object{{"min_gain", r.rule.min_gain},
                           {"false_alarm", r.rule.false_alarm},
                           {"compared", r.rule.compared},
                           {"rounds_needed", rounds_needed(r.rule)}};
  json::array confirmed;
  for (const Confirmed& c : r.confirmed) {
    confirmed.push_back(json::object{{"label", r.candidates[c.candidate].label()},
                                     {"runs", runs_json(c.runs)},
                                     {"gain", number_or_null(c.comparison.gain)},
                                     {"gain_low", number_or_null(c.comparison.gain_low)},
                                     {"gain_high", number_or_null(c.comparison.gain_high)},
                                     {"margin", number_or_null(c.comparison.margin)},
                                     {"beats_defaults", c.comparison.beats},
                                     {"reason", c.comparison.reason}});
  }
  o["confirmed"] = std::move(confirmed);
  o["default_runs"] = runs_json(r.default_runs);
  const Confirmed* best = r.best_confirmed();
  o["best"] = best ? json::value(r.candidates[best->candidate].label()) : json::value(nullptr);
  o["best_runs"] = best ? json::value(runs_json(best->runs)) : json::value(json::array());
  o["gain"] = best ? number_or_null(best->comparison.gain) : json::value(nullptr);
  o["gain_low"] = best ? number_or_null(best->comparison.gain_low) : json::value(nullptr);
  o["gain_high"] = best ? number_or_null(best->comparison.gain_high) : json::value(nullptr);
  return json::serialize(o) + "\n";
}

std::string tune_toml(const SearchResult& r, const TuneContext& context) {
  std::string out = "# supportd tune: " + verdict(r) + "\n";
  const Confirmed* best = r.best_confirmed();
  std::vector<Setting> settings = context.fixed;
  if (r.recommended && best != nullptr) {
    out += fmt::format(
        "# goodput (requests/s in SLO), mean of {} rounds: {:.3f} against {:.3f} with the "
        "defaults\n",
        best->runs.size(), mean_of(best->runs), mean_of(r.default_runs));
    for (const Setting& s : r.candidates[best->candidate].settings) {
      std::erase_if(settings, [&s](const Setting& fixed) { return fixed.key == s.key; });
      settings.push_back(s);
    }
  } else {
    out +=
        "# This file claims no gain: it holds only the settings every candidate had (--fixed); "
        "serve's defaults stand for the rest.\n";
  }
  out += "# workload: " + context.workload + "; SLO: " + context.slo + "\n";
  out += "# " + context.command + "\n";
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> sections;
  for (const Setting& s : settings) {
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
