// `supportd tune`: searches serve's settings for the most goodput under an SLO. Every candidate
// (a combination of the values given with --search) runs as a real `supportd serve` on loopback,
// loaded with the workload given as bench flags after `--` (a combination of serve's own
// defaults is the defaults, run once as such); successive halving on short trials,
// then the best few confirmed against the defaults (src/tune/search.h). Prints the table and the
// verdict, and writes serve's TOML config: the recommendation when one beat the defaults beyond
// the noise (src/tune/confirmation.h), else the defaults, saying so.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <ranges>

#include "app/bench_flags.h"
#include "app/commands.h"
#include "app/serve_config.h"
#include "bench/report.h"
#include "bench/runner.h"
#include "core/progress.h"
#include "core/temp_file.h"
#include "tune/search.h"
#include "tune/serve_process.h"
#include "tune/tune_report.h"

namespace supportd::app {
namespace {

// Exit codes: 0 done (whether or not a setting beat the defaults); 1 no trial could be
// measured or a report could not be written; 2 bad input.
int fail(const Error& error) {
  return report_failure(error, {ErrorCode::kInvalidArgument, ErrorCode::kNotFound});
}

struct TuneFlags {
  std::string model;
  std::vector<std::string> search;  // NAME=V1,V2,...
  std::vector<std::string> fixed;   // NAME=VALUE, for every candidate
  double trial_s = 20, confirm_s = 0;
  int repeats = tune::SearchOptions{}.repeats;
  std::size_t confirm = tune::SearchOptions{}.confirm;
  double min_gain_percent = tune::SearchOptions{}.min_gain * 100;
  std::string budget = "20m";
  std::size_t max_candidates = 64;
  double ready_timeout_s = 300;
  std::string out_path = "tuned.toml", json_path;
  std::vector<std::string> workload;  // bench flags, after --
};

// Options tune sets itself on every server it starts.
constexpr const char* kManaged[] = {"model", "host", "port", "port-file", "config", "log-level"};

// serve's options on a scratch command: to look names up and to check candidates as serve
// would, before any server is started.
struct ServeTable {
  CLI::App command{"serve"};
  ServeConfig config;
  ServeOptions options{command, config};
};

// CLI11 parses a vector from its back.
void parse_args(CLI::App& command, std::vector<std::string> args) {
  std::reverse(args.begin(), args.end());
  command.parse(args);
}

Result<std::pair<std::string, std::string>> name_and_value(const std::string& text,
                                                           const std::string& flag) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
    return Error::invalid(flag + " " + text + ": expected NAME=VALUE (e.g. parallel=4,8)");
  std::string name = text.substr(0, equals);
  if (name.starts_with("--")) name = name.substr(2);
  for (const char* managed : kManaged) {
    if (name == managed)
      return Error::invalid(flag + " " + text + ": tune sets --" + name + " itself");
  }
  return std::pair{name, text.substr(equals + 1)};
}

// What tune needs of one of serve's options.
struct ServeOption {
  std::string key;       // in serve's config file ("engine.parallel")
  std::string fallback;  // its default as --help shows it ("16"); empty when it shows none
};

// serve's option `name`.
Result<ServeOption> serve_option(const std::string& name, const std::string& shown) {
  ServeTable table;
  for (const DeclaredOption* option : table.options.table().options()) {
    if (option->name() != name) continue;
    const CLI::Option* flag = table.command.get_option_no_throw(option->flag());
    return ServeOption{option->key(), flag != nullptr ? flag->get_default_str() : std::string()};
  }
  return Error::invalid(shown + ": '" + name +
                        "' is not an option of supportd serve (see supportd serve --help)");
}

// Whether `value` is the default `fallback`: the same text, or the same number ("16", "16.0").
bool same_value(const std::string& value, const std::string& fallback) {
  if (value == fallback) return true;
  if (value.empty() || fallback.empty()) return false;
  char* value_end = nullptr;
  char* fallback_end = nullptr;
  const double a = std::strtod(value.c_str(), &value_end);
  const double b = std::strtod(fallback.c_str(), &fallback_end);
  return *value_end == '\0' && *fallback_end == '\0' && a == b;
}

// serve's own verdict on `args`, as it would give it at start.
Status check_serve_args(const std::vector<std::string>& args, const std::string& shown) {
  ServeTable table;
  try {
    parse_args(table.command, args);
  } catch (const CLI::ParseError& e) {
    return Error::invalid(shown + ": " + e.what());
  }
  if (auto status = table.options.finish(); !status)
    return Error::invalid(shown + ": " + status.error().message);
  return {};
}

Result<double> parse_budget(const std::string& text) {
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  const std::string unit(end);
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (end == text.c_str() || scale == 0 || !std::isfinite(number) || !(number > 0))
    return Error::invalid("--budget " + text + ": expected a time above 0 such as 90s, 20m or 1h");
  return number * scale;
}

struct Plan {
  std::vector<std::string> base_args;  // --model, --log-level, the fixed settings
  std::vector<tune::Candidate> candidates;
  std::string defaults_named;  // the label of a combination that is serve's defaults, if any
  bench::BenchOptions workload;
  tune::SearchOptions search;
  tune::TuneContext context;
};

Result<bench::BenchOptions> workload_options(const TuneFlags& f, std::string& slo) {
  BenchFlags flags;
  CLI::App command{"the workload"};
  command.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  add_bench_flags(&command, flags);
  try {
    parse_args(command, f.workload);
  } catch (const CLI::ParseError& e) {
    return Error::invalid(std::string("the workload (bench flags after --): ") + e.what());
  }
  for (const char* own : {"--url", "--duration", "--requests"}) {
    if (command.count(own) > 0) {
      return Error::invalid(std::string("the workload's ") + own +
                            " is tune's to set (each trial's server and length)");
    }
  }
  if (command.count("--rate") + command.count("--concurrency") + command.count("--trace") == 0) {
    return Error::invalid(
        "the workload needs a load after --: --rate R, --concurrency N or --trace FILE");
  }
  if (command.count("--slo-ttft") + command.count("--slo-e2e") == 0) {
    flags.options.slo_ttft_ms = 1000;
    slo = "TTFT <= 1000 ms (the default; give --slo-ttft or --slo-e2e after --)";
  }
  if (auto status = prepare(flags, command); !status) return status.error();
  bench::BenchOptions& o = flags.options;
  if (slo.empty()) {
    std::vector<std::string> bounds;
    if (o.slo_ttft_ms > 0) bounds.push_back(fmt::format("TTFT <= {} ms", o.slo_ttft_ms));
    if (o.slo_e2e_ms > 0) bounds.push_back(fmt::format("end-to-end <= {} ms", o.slo_e2e_ms));
    slo = fmt::format("{}", fmt::join(bounds, ", "));
  }
  o.progress = false;
  o.poll_server = false;
  return o;
}

Result<Plan> make_plan(const TuneFlags& f, const CLI::App& command) {
  Plan plan;
  if (f.model.empty()) return Error::invalid("--model FILE is needed: the model to serve");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(f.model, ec))
    return Error::make(ErrorCode::kNotFound, "--model " + f.model + ": no such file");
  if (f.search.empty())
    return Error::invalid("--search NAME=V1,V2,... is needed: the settings to try");
  if (!(f.trial_s >= 1 && std::isfinite(f.trial_s)))
    return Error::invalid("--trial-seconds must be at least 1");
  if (command.count("--confirm-seconds") > 0 && !(f.confirm_s >= 1 && std::isfinite(f.confirm_s)))
    return Error::invalid("--confirm-seconds must be at least 1");
  if (f.repeats < 1) return Error::invalid("--repeats must be at least 1");
  if (f.confirm < 1) return Error::invalid("--confirm-best must be at least 1");
  if (!(f.min_gain_percent >= 0 && f.min_gain_percent <= 1000))
    return Error::invalid("--min-gain must be a percentage from 0 to 1000");
  if (!(f.ready_timeout_s > 0)) return Error::invalid("--ready-timeout must be above 0");
  auto budget = parse_budget(f.budget);
  if (!budget) return budget.error();
  plan.search.first_trial_s = f.trial_s;
  plan.search.confirm_trial_s = f.confirm_s;
  plan.search.repeats = f.repeats;
  plan.search.confirm = f.confirm;
  plan.search.min_gain = f.min_gain_percent / 100;
  plan.search.budget_s = *budget;
  if (auto status = check_output_file("--out", f.out_path); !status) return status.error();
  if (command.count("--json") > 0) {
    if (auto status = check_output_file("--json", f.json_path); !status) return status.error();
  }

  plan.base_args = {"--model", f.model, "--log-level", "warn"};
  for (const std::string& text : f.fixed) {
    auto setting = name_and_value(text, "--fixed");
    if (!setting) return setting.error();
    auto option = serve_option(setting->first, "--fixed " + text);
    if (!option) return option.error();
    plan.context.fixed.push_back({setting->first, option->key, setting->second});
    plan.base_args.push_back("--" + setting->first);
    plan.base_args.push_back(setting->second);
  }
  if (auto status = check_serve_args(plan.base_args, "--model/--fixed"); !status)
    return status.error();

  std::vector<tune::Dimension> dimensions;
  std::map<std::string, std::string> fallback_of;  // each searched option's default
  for (const std::string& text : f.search) {
    auto setting = name_and_value(text, "--search");
    if (!setting) return setting.error();
    auto option = serve_option(setting->first, "--search " + text);
    if (!option) return option.error();
    const bool fixed =
        std::any_of(plan.context.fixed.begin(), plan.context.fixed.end(),
                    [&](const tune::Setting& s) { return s.name == setting->first; });
    if (fixed) {
      return Error::invalid("--search " + text + ": --" + setting->first +
                            " is also given with --fixed; an option is either fixed or searched");
    }
    if (std::any_of(dimensions.begin(), dimensions.end(),
                    [&](const tune::Dimension& d) { return d.name == setting->first; })) {
      return Error::invalid("--search " + text + ": --" + setting->first +
                            " is searched twice; give its values in one --search");
    }
    fallback_of[setting->first] = option->fallback;
    tune::Dimension d{setting->first, option->key, {}};
    for (const auto& part : std::views::split(setting->second, ',')) {
      std::string value(part.begin(), part.end());
      if (value.empty()) return Error::invalid("--search " + text + ": an empty value");
      if (std::find(d.values.begin(), d.values.end(), value) != d.values.end())
        return Error::invalid("--search " + text + ": " + value + " is given twice");
      std::vector<std::string> args = plan.base_args;
      args.insert(args.end(), {"--" + d.name, value});
      if (auto status = check_serve_args(args, "--search " + d.name + "=" + value); !status)
        return status.error();
      d.values.push_back(value);
    }
    dimensions.push_back(std::move(d));
  }
  auto candidates = tune::combinations(dimensions, f.max_candidates);
  if (!candidates) return candidates.error();
  plan.candidates = std::move(*candidates);
  // A combination whose every value is serve's default is the defaults under another name: it
  // runs once, as "defaults" (a copy would spend a trial per round and read as a rival).
  const auto is_defaults = [&fallback_of](const tune::Candidate& c) {
    return !c.defaults() &&
           std::all_of(c.settings.begin(), c.settings.end(), [&fallback_of](const auto& s) {
             return same_value(s.value, fallback_of.at(s.name));
           });
  };
  const auto copy = std::find_if(plan.candidates.begin(), plan.candidates.end(), is_defaults);
  if (copy != plan.candidates.end()) {
    plan.defaults_named = copy->label();
    plan.candidates.erase(copy);
  }
  if (plan.candidates.size() < 2) {
    return Error::invalid("--search: " + plan.defaults_named +
                          " is serve's defaults, so nothing else is left to try");
  }

  auto workload = workload_options(f, plan.context.slo);
  if (!workload) return workload.error();
  plan.workload = std::move(*workload);
  plan.context.workload = fmt::format(
      "{}{}, prompts of {} words, outputs of {} tokens", bench::load_mode_name(plan.workload.mode),
      plan.workload.mode == bench::LoadMode::kPoisson ? fmt::format(" {}/s", plan.workload.rate)
      : plan.workload.mode == bench::LoadMode::kClosed
          ? fmt::format(" {} users", plan.workload.concurrency)
          : std::string(),
      plan.workload.workload.prompt_tokens.describe(),
      plan.workload.workload.output_tokens.describe());
  return plan;
}

// One trial: a fresh server with the candidate's settings, the workload for `seconds`.
Result<double> run_trial(const Plan& plan, const tune::Candidate& candidate, double seconds,
                         const std::string& log_path, double ready_timeout_s) {
  std::vector<std::string> args = plan.base_args;
  const std::vector<std::string> flags = candidate.flags();
  args.insert(args.end(), flags.begin(), flags.end());
  const std::string binary = std::filesystem::read_symlink("/proc/self/exe").string();
  auto server = tune::ServeProcess::start(binary, args, log_path, ready_timeout_s);
  if (!server) return server.error();
  bench::BenchOptions o = plan.workload;
  o.url = server->url();
  o.requests = 0;
  o.duration_s = seconds;
  if (o.warmup_s == 0 && o.warmup_requests == 0) o.warmup_s = std::min(5.0, seconds / 5);
  o.max_time_s = o.warmup_s + seconds + std::min(o.request_timeout_s, 120.0);
  auto record = bench::run_benchmark(o);
  server->stop();
  if (!record) return record.error();
  const bench::Report report = bench::build_report(*record, o);
  if (report.ok == 0) {
    return Error::make(ErrorCode::kUnavailable,
                       fmt::format("no request succeeded ({} errors, {} rejected)", report.errors,
                                   report.rejected));
  }
  return report.goodput;
}

int run(const TuneFlags& f, const CLI::App& command) {
  auto made = make_plan(f, command);
  if (!made) return fail(made.error());
  Plan& plan = *made;
  plan.context.command = "supportd tune --model " + f.model;
  for (const std::string& s : f.search)
    plan.context.command += " --search " + s;
  for (const std::string& s : f.fixed)
    plan.context.command += " --fixed " + s;
  plan.context.command += " --";
  for (const std::string& s : f.workload)
    plan.context.command += " " + s;

  std::string scratch = (std::filesystem::temp_directory_path() / "supportd-tune-XXXXXX").string();
  if (::mkdtemp(scratch.data()) == nullptr)
    return fail(Error::make(ErrorCode::kUnavailable, "cannot create a directory in /tmp"));
  const std::string log_path = scratch + "/serve.log";

  const int planned = tune::planned_trials(plan.candidates.size(), plan.search);
  fmt::print(stderr, "tuning: {} candidates (and the defaults), about {} trials, budget {}\n",
             plan.candidates.size() - 1, planned, f.budget);
  if (!plan.defaults_named.empty()) {
    fmt::print(stderr, "note: {} is serve's defaults: it runs as \"defaults\", once per round\n",
               plan.defaults_named);
  }
  const tune::NoiseRule rule{
      plan.search.min_gain, tune::NoiseRule{}.false_alarm,
      static_cast<int>(std::min(plan.search.confirm, plan.candidates.size() - 1))};
  if (f.repeats < tune::rounds_needed(rule)) {
    fmt::print(stderr,
               "note: --repeats {} cannot tell a gain from the noise with {} confirmed: nothing "
               "will be recommended (give --repeats {} or more)\n",
               f.repeats, rule.compared, tune::rounds_needed(rule));
  }
  ProgressBar bar("tune", planned);
  const bool terminal = ::isatty(2) != 0;
  auto trial = [&](const tune::Candidate& c, double seconds) {
    return run_trial(plan, c, seconds, log_path, f.ready_timeout_s);
  };
  auto done = [&](const tune::Trial& t, int count, int total) {
    const std::string what = t.goodput ? fmt::format("{:.3f} good/s", *t.goodput) : "failed";
    fmt::print(stderr, "{}[{}/{}] {} {}: {} ({:.0f} s)\n", terminal ? "\r\033[K" : "", count, total,
               t.round < 0 ? "confirm" : fmt::format("round {}", t.round + 1),
               plan.candidates[t.candidate].label(), what, t.seconds);
    bar.update(count);
  };
  const tune::SearchResult result = tune::search(plan.candidates, plan.search, trial, done);
  bar.finish();
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);

  fmt::print("{}", tune::tune_text(result, plan.context));
  int code = 0;
  if (command.count("--json") > 0) {
    if (auto status = write_file_atomically(f.json_path, tune::tune_json(result, plan.context));
        !status)
      code = fail(status.error());
  }
  const bool measured = std::any_of(result.trials.begin(), result.trials.end(),
                                    [](const tune::Trial& t) { return t.goodput.has_value(); });
  if (!measured) {
    return fail(Error::make(ErrorCode::kUnavailable, "no trial could be measured (see above)"));
  }
  if (auto status = write_file_atomically(f.out_path, tune::tune_toml(result, plan.context));
      !status) {
    code = fail(status.error());
  } else {
    fmt::print("wrote {} ({}; supportd serve --config {})\n", f.out_path,
               result.recommended ? "the recommendation" : "the defaults: no gain claimed",
               f.out_path);
  }
  return code;
}

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
  static TuneFlags f;
  CLI::App* c = app.add_subcommand(
      "tune",
      "Search serve's settings for the most goodput under an SLO: real servers on loopback, "
      "successive halving on short trials, the best confirmed against the defaults");
  c->footer(
      "The workload is `supportd bench` flags after --: a load (--rate, --concurrency or "
      "--trace), the requests (--prompt-tokens, --output-tokens, --system-prompt-tokens, "
      "--preset, ...), the SLO (--slo-ttft, --slo-e2e; default TTFT <= 1000 ms). tune sets "
      "--url, --duration and --requests itself.\n"
      "Each trial starts `supportd serve --model FILE` with the candidate's settings on "
      "127.0.0.1 (a free port) and stops it after; every candidate runs --trial-seconds, the "
      "better half twice as long, and so on until the --confirm-best (and one more) remain (a "
      "combination of serve's own defaults runs as the defaults); "
      "then those and the defaults run --repeats rounds, interleaved. One is recommended (and "
      "written to --out as serve's TOML) only when its worst run beats the defaults' best by "
      "--min-gain, over enough rounds that noise alone passes at most 5% of the time (3 rounds "
      "for one candidate, 4 for two or three); otherwise --out gets the defaults, claiming no "
      "gain. Same flags, same requests (the workload's --seed).\n"
      "Exit codes: 0 done (recommended or not), 1 no trial could be measured or a report "
      "could not be written, 2 bad input.\n"
      "Example:\n"
      "  supportd tune --model m.gguf --search parallel=4,8,16 --search step-tokens=256,512 "
      "--budget 20m -- --rate 6 --prompt-tokens 256 --output-tokens 128 --slo-ttft 2000");
  c->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  const char* what = "What to tune";
  c->add_option("--model", f.model, "The model every candidate serves")
      ->type_name("FILE")
      ->group(what);
  c->add_option("--search", f.search, "A serve option and the values to try, e.g. parallel=4,8,16")
      ->expected(1)  // one NAME=... each (repeat the flag): a "--" after it starts the workload
      ->allow_extra_args(false)
      ->type_name("NAME=V1,V2")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group(what);
  c->add_option("--fixed", f.fixed, "A serve option every candidate gets, e.g. threads=2")
      ->expected(1)  // one NAME=... each (repeat the flag): a "--" after it starts the workload
      ->allow_extra_args(false)
      ->type_name("NAME=VALUE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->group(what);
  const char* how = "Search";
  c->add_option("--trial-seconds", f.trial_s, "Length of the first round's trials")
      ->type_name("S")
      ->capture_default_str()
      ->group(how);
  c->add_option("--confirm-seconds", f.confirm_s,
                "Length of the confirmation runs (default: twice the last round's)")
      ->type_name("S")
      ->group(how);
  c->add_option("--repeats", f.repeats, "Confirmation rounds: a run of the defaults and of each")
      ->type_name("N")
      ->capture_default_str()
      ->group(how);
  c->add_option("--confirm-best", f.confirm, "Candidates confirmed against the defaults")
      ->type_name("N")
      ->capture_default_str()
      ->group(how);
  c->add_option("--min-gain", f.min_gain_percent,
                "Percent by which a recommendation's worst run beats the defaults' best")
      ->type_name("PCT")
      ->capture_default_str()
      ->group(how);
  c->add_option("--budget", f.budget, "No trial starts that would end after this (90s, 20m, 1h)")
      ->type_name("TIME")
      ->capture_default_str()
      ->group(how);
  c->add_option("--max-candidates", f.max_candidates, "Refuse searches of more combinations")
      ->type_name("N")
      ->capture_default_str()
      ->group(how);
  c->add_option("--ready-timeout", f.ready_timeout_s, "Seconds a server may take to be ready")
      ->type_name("S")
      ->capture_default_str()
      ->group(how);
  const char* output = "Output";
  c->add_option("--out", f.out_path,
                "The recommended settings (or the defaults), as serve's TOML config")
      ->type_name("FILE")
      ->capture_default_str()
      ->group(output);
  c->add_option("--json", f.json_path, "Also write every trial and the verdict as JSON")
      ->type_name("FILE")
      ->group(output);
  // At least one expected: CLI11 hands "--" to a subcommand only while a positional of it
  // still wants a value (a vector's default minimum is 0).
  c->add_option("workload", f.workload, "The workload: supportd bench flags, after --")
      ->expected(1, 1 << 16)
      ->type_name("-- BENCH FLAGS")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  c->callback([&exit_code, c] { exit_code = run(f, *c); });
}

}  // namespace supportd::app
