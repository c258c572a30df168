// `supportd capacity`: a queueing-theory capacity plan (src/plan) from numbers given on the
// command line, read from a `supportd bench --json` report, or measured by a running supportd;
// printed as text, JSON (--json) or written as an HTML page (--html).
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/commands.h"
#include "bench/workload.h"
#include "core/temp_file.h"
#include "plan/capacity_plan.h"
#include "plan/measured_load.h"
#include "plan/plan_report.h"
#include "plan/stats_client.h"

namespace supportd::app {
namespace {

// Exit codes: 0 done; 1 the server or the output file failed; 2 bad input (a flag, a file given
// that is missing or of the wrong kind, a server that is not a supportd of this version).
int fail(const Error& error) {
  return report_failure(
      error, {ErrorCode::kInvalidArgument, ErrorCode::kNotFound, ErrorCode::kUnsupported});
}

struct CapacityFlags {
  double arrival_rate = 0, service_time = 0, service_rate = 0;
  int servers = 0;
  double arrival_cv = 1, service_cv = 1;
  std::string priority_mix;
  int slots_per_engine = 0;
  std::vector<double> busy_rates;
  std::vector<double> step_cost;
  double prompt_tokens = 0, output_tokens = 0;
  int step_tokens = 256;
  int split_tokens = 64;  // the unified layout's (engine/llama/step.cpp)
  std::vector<double> speed_trace;
  std::vector<double> iteration_excess;
  std::vector<double> iteration_excess_shares;
  double speed_window = 5;
  std::string bench_report, url, api_key;
  double timeout_s = 10;
  double target_wait = 0, service_level = 0, target_mean_wait = 0, max_utilization = 0,
         headroom = 0;
  std::vector<double> growth{1, 1.2, 1.5, 2, 3, 4, 5};
  double run_seconds = 0;
  int run_repeats = 1;
  bool json = false;
  std::string html_path;
};

Result<std::string> read_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return Error::invalid("--bench-report: " + path + " is a directory, not a report");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make(ErrorCode::kNotFound, "--bench-report: cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Result<plan::MeasuredLoad> measure(const CapacityFlags& f) {
  if (!f.bench_report.empty()) {
    auto text = read_file(f.bench_report);
    if (!text) return text.error();
    return plan::load_from_bench_report(*text, f.bench_report);
  }
  if (!f.url.empty()) {
    if (!(std::isfinite(f.timeout_s) && f.timeout_s > 0))
      return Error::invalid("--timeout must be a number of seconds above 0");
    auto body = plan::http_get(f.url, "/v1/stats", f.api_key, f.timeout_s);
    if (!body) return body.error();
    return plan::load_from_supportd_stats(*body, f.url);
  }
  plan::MeasuredLoad m;
  m.source = "the command line";
  return m;
}

// A flag given on the command line wins over the measured number.
template <typename T>
T pick(const CLI::App& command, const char* flag, T given, const std::optional<T>& measured,
       T otherwise) {
  if (command.count(flag) > 0) return given;
  return measured.value_or(otherwise);
}

// A flag that reads the simulated engine given without one.
Error needs_simulated_engine(std::string_view flag) {
  return Error::invalid(
      fmt::format("{} needs a simulated engine: --step-cost, or --url from a "
                  "server that has measured its iteration costs",
                  flag));
}

// The engine to simulate: --step-cost (with --servers and the tokens, given or measured), or
// one a running supportd measured, unless the service is given otherwise or --servers differs
// from its slots; nullopt for neither. Notes what it sets aside in `m`.
Result<std::optional<plan::BatchingModel>> simulated_engine(const CapacityFlags& f,
                                                            const CLI::App& c,
                                                            plan::MeasuredLoad& m,
                                                            const plan::Station& s) {
  std::optional<plan::BatchingModel> engine;
  const bool servers_given = c.count("--servers") > 0;
  if (c.count("--step-cost") > 0) {
    if (f.step_cost.size() < 3 || f.step_cost.size() > 5) {
      return Error::invalid(
          "--step-cost takes three to five numbers, FIXED,DECODE,PROMPT[,SPLIT[,PAIR]]: an "
          "engine iteration's milliseconds, fixed, per decode token, per prompt token, what a "
          "split iteration adds, and what each pair of decode tokens in an iteration adds");
    }
    engine = m.batching.value_or(plan::BatchingModel{});  // measured tokens, if any
    engine->fixed_ms = f.step_cost[0];
    engine->per_decode_token_ms = f.step_cost[1];
    engine->per_prompt_token_ms = f.step_cost[2];
    engine->per_split_ms = f.step_cost.size() >= 4 ? f.step_cost[3] : 0.0;
    engine->per_decode_pair_ms = f.step_cost.size() == 5 ? f.step_cost[4] : 0.0;
    if (!servers_given && !m.batching)
      return Error::invalid("--step-cost needs --servers: the engine's slots");
    if (servers_given) engine->slots = f.servers;
    const bool tokens_known =
        m.batching || (c.count("--prompt-tokens") > 0 && c.count("--output-tokens") > 0);
    if (!tokens_known) {
      return Error::invalid(
          "--step-cost needs --prompt-tokens and --output-tokens: what a request computes and "
          "generates, on average");
    }
  } else if (m.batching && c.count("--service-time") == 0 && c.count("--service-rate") == 0 &&
             c.count("--busy-rates") == 0) {
    if (servers_given && f.servers != m.batching->slots) {
      m.notes.push_back(
          "iteration costs: measured for the engine's slots, set aside for --servers");
    } else {
      engine = m.batching;
      if (!s.busy_rates.empty())
        m.notes.push_back("service curve: set aside for the simulation of the engine");
    }
  }
  const bool speed_given = c.count("--speed-trace") > 0 || c.count("--speed-window") > 0;
  if (!engine && speed_given) return needs_simulated_engine("--speed-trace");
  if (!engine && c.count("--iteration-excess") > 0)
    return needs_simulated_engine("--iteration-excess");
  if (!engine) return engine;
  if (c.count("--iteration-excess-shares") > 0 && c.count("--iteration-excess") == 0)
    return Error::invalid("--iteration-excess-shares goes with --iteration-excess");
  if (c.count("--iteration-excess") > 0) {
    engine->excess_ms = f.iteration_excess;
    engine->excess_shares = f.iteration_excess_shares;
  }
  if (c.count("--speed-window") > 0 && c.count("--speed-trace") == 0)
    return Error::invalid("--speed-window goes with --speed-trace");
  engine->speed_trace = f.speed_trace;
  engine->speed_window_s = f.speed_window;
  if (c.count("--prompt-tokens") > 0) engine->prompt_tokens = f.prompt_tokens;
  if (c.count("--output-tokens") > 0) engine->output_tokens = f.output_tokens;
  if (c.count("--step-tokens") > 0) engine->step_tokens = f.step_tokens;
  if (c.count("--split-tokens") > 0) engine->split_tokens = f.split_tokens;
  return engine;
}

Result<plan::PlanInputs> plan_inputs(const CapacityFlags& f, const CLI::App& c) {
  auto measured = measure(f);
  if (!measured) return measured.error();
  plan::MeasuredLoad& m = *measured;
  plan::PlanInputs in;
  in.source = m.source;
  plan::Station& s = in.station;
  s.arrival_rate = pick(c, "--arrival-rate", f.arrival_rate, m.arrival_rate, 0.0);
  if (c.count("--arrival-rate") == 0 && !m.arrival_rate) {
    return Error::invalid(m.source == "the command line"
                              ? "--arrival-rate is needed (or --bench-report FILE, or --url URL)"
                              : m.source + " has no arrivals to plan from; give --arrival-rate");
  }
  const bool curve_given = c.count("--busy-rates") > 0;
  const bool engine_given = c.count("--step-cost") > 0;
  if (curve_given && engine_given) {
    return Error::invalid(
        "--busy-rates and --step-cost are two models of one engine's batching: give one");
  }
  const bool service_given =
      c.count("--service-time") > 0 || c.count("--service-rate") > 0 || curve_given || engine_given;
  if (!service_given && !m.service_time_s) {
    return Error::invalid(m.source == "the command line"
                              ? "--service-time or --service-rate is needed"
                              : m.source + " has no service time; give --service-time");
  }
  if (c.count("--service-time") > 0) {
    if (!(std::isfinite(f.service_time) && f.service_time > 0))
      return Error::invalid("--service-time must be a number of seconds above 0", "service-time");
    s.service_rate = 1 / f.service_time;
  } else if (c.count("--service-rate") > 0) {
    s.service_rate = f.service_rate;
  } else if (curve_given) {
    s.service_rate = f.busy_rates.front();  // one request alone: its rate is 1 / service time
  } else if (engine_given) {
    s.service_rate = 1;  // until the simulated engine's capacity sets it (below)
  } else {
    s.service_rate = 1 / *m.service_time_s;
  }
  s.servers = pick(c, "--servers", f.servers, m.servers, 0);
  if (c.count("--servers") > 0 && f.servers < 1)
    return Error::invalid("--servers must be at least 1 (leave it out to have it chosen)");
  if (curve_given) {
    const int slots = static_cast<int>(f.busy_rates.size());
    if (c.count("--servers") > 0 && f.servers != slots) {
      return Error::invalid(
          fmt::format("--busy-rates has {} rates (one per busy slot) but "
                      "--servers is {}: they must agree",
                      slots, f.servers));
    }
    s.servers = slots;
    s.busy_rates = f.busy_rates;
  } else if (!m.busy_rates.empty() && c.count("--service-time") == 0 &&
             c.count("--service-rate") == 0) {
    // A running supportd's measured curve: continuous batching makes a slot's rate depend on
    // how many are busy, which a plain M/M/c misses.
    if (c.count("--servers") > 0 && f.servers != static_cast<int>(m.busy_rates.size())) {
      m.notes.push_back(
          "service curve: measured for the engine's slots, set aside for --servers; plain M/M/c");
    } else {
      s.servers = static_cast<int>(m.busy_rates.size());
      s.busy_rates = m.busy_rates;
    }
  }
  if (auto simulated = simulated_engine(f, c, m, s); !simulated) {
    return simulated.error();
  } else if (*simulated) {
    auto station = plan::with_batching(s, **simulated);
    if (!station) return station.error();
    s = std::move(*station);
  }
  in.notes = m.notes;
  s.arrival_cv = pick(c, "--arrival-cv", f.arrival_cv, m.arrival_cv, 1.0);
  s.service_cv = pick(c, "--service-cv", f.service_cv, m.service_cv, 1.0);
  if (c.count("--arrival-cv") == 0 && !m.arrival_cv && m.source != "the command line")
    in.notes.push_back("arrival CV: not measured, assumed 1 (Poisson); give --arrival-cv");
  if (c.count("--service-cv") == 0 && !m.service_cv && m.source != "the command line")
    in.notes.push_back("service CV: not measured, assumed 1 (exponential); give --service-cv");
  in.slots_per_engine = pick(c, "--slots-per-engine", f.slots_per_engine, m.slots_per_engine, 0);
  if (c.count("--slots-per-engine") > 0 && f.slots_per_engine < 1)
    return Error::invalid("--slots-per-engine must be at least 1");

  // Classes: --priority-mix shares the arrivals (one service time); else a measured mix.
  std::array<double, plan::kClasses> weights = m.class_arrival_rate;
  if (!f.priority_mix.empty()) {
    auto mix = bench::parse_priority_mix(f.priority_mix);
    if (!mix) return mix.error();
    weights = *mix;
  }
  int present = 0;
  double total = 0;
  for (double w : weights) {
    present += w > 0 ? 1 : 0;
    total += w;
  }
  if (!f.priority_mix.empty() || present > 1) {
    for (int k = 0; k < plan::kClasses; ++k) {
      const double time = service_given || !m.class_service_time_s[k] ? 1 / s.service_rate
                                                                      : *m.class_service_time_s[k];
      in.classes.push_back(
          {plan::kClassNames[k], s.arrival_rate * weights[k] / total, time, s.service_cv});
    }
  }

  plan::Targets& t = in.targets;
  if (c.count("--target-wait") > 0) t.wait_s = f.target_wait;
  if (c.count("--service-level") > 0) t.service_level = f.service_level;
  if (t.wait_s && !t.service_level) t.service_level = 0.8;
  if (c.count("--target-mean-wait") > 0) t.mean_wait_s = f.target_mean_wait;
  if (c.count("--max-utilization") > 0) t.max_utilization = f.max_utilization;
  if (c.count("--headroom") > 0) t.max_utilization = 1 - f.headroom;
  if (c.count("--headroom") > 0 && !(f.headroom > 0 && f.headroom < 1))
    return Error::invalid("--headroom must be above 0 and below 1 (0.3: plan for 70% busy)");
  in.growth = f.growth;
  if (c.count("--run-seconds") > 0) {
    if (!in.station.batching) return needs_simulated_engine("--run-seconds");
    in.run_seconds = f.run_seconds;
    in.run_repeats = f.run_repeats;
  } else if (c.count("--run-repeats") > 0) {
    return Error::invalid("--run-repeats goes with --run-seconds");
  }
  return in;
}

int run(const CapacityFlags& f, const CLI::App& command) {
  if (command.count("--html") > 0) {
    if (auto status = check_output_file("--html", f.html_path); !status)
      return fail(status.error());
  }
  auto inputs = plan_inputs(f, command);
  if (!inputs) return fail(inputs.error());
  auto plan = plan::make_plan(std::move(*inputs));
  if (!plan) return fail(plan.error());
  fmt::print("{}", f.json ? plan::plan_json(*plan) : plan::plan_text(*plan));
  if (command.count("--html") > 0) {
    if (auto status = write_file_atomically(f.html_path, plan::plan_html(*plan)); !status)
      return fail(status.error());
    fmt::print(stderr, "wrote the HTML report {}\n", f.html_path);
  }
  return 0;
}

}  // namespace

void add_capacity_command(CLI::App& app, int& exit_code) {
  static CapacityFlags f;
  CLI::App* c = app.add_subcommand(
      "capacity",
      "Plan capacity with queueing theory: waits, service level and the servers or engines "
      "needed, today and as the load grows (M/M/c exact; Allen-Cunneen and priority classes "
      "approximated)");
  c->footer(
      "Numbers come from the flags, from a `supportd bench --json` report (--bench-report) or "
      "from a running supportd's /v1/stats (--url); a flag given wins over a measured number.\n"
      "A server is what serves one request at a time: a slot (parallel sequence) of a "
      "supportd engine, an instance of a service. Times are in seconds, rates per second.\n"
      "Targets (all must hold): --target-wait T with --service-level P (default 0.8): P of "
      "arrivals wait at most T; --target-mean-wait; --max-utilization or --headroom. With none, "
      "plan for 30% headroom (utilisation <= 70%).\n"
      "Poisson arrivals and exponential service (CVs 1) give exact M/M/c (Erlang C); other CVs "
      "give Allen-Cunneen's approximation; --priority-mix gives waits per class under "
      "non-preemptive priority (an approximation); --busy-rates gives a load-dependent chain "
      "for one engine whose rate grows less than linearly with its batch (bench/capacity-"
      "backtest measures the curve); --step-cost (or a running supportd's measured iteration "
      "costs, which --url prefers) simulates the engine's continuous batching itself. The "
      "report says which.\n"
      "Exit codes: 0 done, 1 the server or the output file failed, 2 bad input (including a "
      "load the servers cannot carry: utilisation 1 or more has no steady state).\n"
      "Example (the NLU service: 8 instances of 25/s at 150/s):\n"
      "  supportd capacity --arrival-rate 150 --service-rate 25 --servers 8");
  c->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  // One option: its flag, variable, help, the kind of value it takes, its group in --help.
  auto option = [c](const char* flag, auto& value, const char* help, const char* type,
                    const char* group) {
    return c->add_option(flag, value, help)->type_name(type)->group(group);
  };
  const char* load = "Load";
  option("--arrival-rate", f.arrival_rate, "Arrivals per second (lambda)", "R", load);
  option("--service-time", f.service_time, "Mean seconds one server spends on a request (1/mu)",
         "S", load)
      ->excludes(option("--service-rate", f.service_rate,
                        "Requests per second one server completes (mu)", "R", load));
  option("--servers", f.servers, "Servers (slots, instances) today; leave out to choose", "N",
         load);
  option("--arrival-cv", f.arrival_cv, "Std/mean of the gaps between arrivals (1: Poisson)", "X",
         load);
  option("--service-cv", f.service_cv, "Std/mean of the service time (1: exponential)", "X", load);
  option("--priority-mix", f.priority_mix,
         "Shares of the classes, e.g. high=1,normal=8,low=1: waits per class", "LIST", load);
  option("--busy-rates", f.busy_rates,
         "One engine's measured completions per second with 1, 2, .. N slots busy: a "
         "load-dependent model of continuous batching (N servers)",
         "LIST", load)
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  option("--step-cost", f.step_cost,
         "One engine's iteration cost in ms: fixed, per decode token, per prompt token, and "
         "optionally what a split iteration adds and what each pair of decode tokens in one "
         "iteration adds (its /v1/stats capacity.iteration_cost): simulate its continuous "
         "batching (--servers slots)",
         "F,D,P[,S[,Q]]", load)
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  option("--prompt-tokens", f.prompt_tokens,
         "With --step-cost: prompt tokens a request computes (not reused), on average", "N", load);
  option("--output-tokens", f.output_tokens,
         "With --step-cost: tokens a request generates, on average", "N", load);
  option("--step-tokens", f.step_tokens,
         "With --step-cost: the engine's token budget per step (serve --step-tokens)", "N", load)
      ->capture_default_str();
  option("--split-tokens", f.split_tokens,
         "With --step-cost: an iteration holding decode tokens and prompt chunks is split from "
         "this many tokens (capacity.iteration_cost.split_tokens; 0: never)",
         "N", load)
      ->capture_default_str();
  option("--speed-trace", f.speed_trace,
         "With a simulated engine: the machine's speed over time as factors on every cost "
         "(1: as the costs say; 1.1: 10% slower), one per --speed-window, repeating",
         "LIST", load)
      ->delimiter(',');
  option("--speed-window", f.speed_window, "With --speed-trace: seconds each factor holds", "S",
         load)
      ->capture_default_str();
  option("--iteration-excess", f.iteration_excess,
         "With a simulated engine: milliseconds an iteration takes beyond its cost, one drawn "
         "at random per iteration (equally likely, or by --iteration-excess-shares; --url: the "
         "engine's measured capacity.iteration_cost.excess_ms; 0: none)",
         "LIST", load)
      ->delimiter(',');
  option("--iteration-excess-shares", f.iteration_excess_shares,
         "With --iteration-excess: each value's chance, in proportion (default: equal; "
         "capacity.iteration_cost.excess_shares)",
         "LIST", load)
      ->delimiter(',');
  option("--slots-per-engine", f.slots_per_engine,
         "Servers one engine holds, to count engines (--url: the engine's slots)", "N", load);

  const char* measured = "Measured";
  option("--bench-report", f.bench_report, "Start from a `supportd bench --json` report", "FILE",
         measured)
      ->excludes(
          option("--url", f.url, "Start from a running supportd's /v1/stats", "URL", measured));
  option("--api-key", f.api_key, "Bearer key for --url", "KEY", measured);
  option("--timeout", f.timeout_s, "Seconds to wait for --url", "S", measured)
      ->capture_default_str();

  const char* targets = "Targets";
  option("--target-wait", f.target_wait, "Service level: the wait to answer within", "S", targets);
  option("--service-level", f.service_level,
         "Service level: share answered within --target-wait (default 0.8)", "P", targets);
  option("--target-mean-wait", f.target_mean_wait, "Mean wait at most S", "S", targets);
  option("--max-utilization", f.max_utilization, "Utilisation at most U (0.7: 30% headroom)", "U",
         targets)
      ->excludes(
          option("--headroom", f.headroom, "Keep this share idle (0.3 = 70% busy)", "H", targets));

  const char* output = "Output";
  option("--growth", f.growth, "Load factors of the what-if table", "LIST", output)
      ->delimiter(',')
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->default_str("1,1.2,1.5,2,3,4,5");
  option("--run-seconds", f.run_seconds,
         "With a simulated engine: how much a measured run of S seconds at today's rate varies "
         "by chance (its mean and p95 wait over 200 simulated runs: 5th, 50th, 95th "
         "percentiles), to read a measurement against",
         "S", output);
  option("--run-repeats", f.run_repeats,
         "With --run-seconds: the runs a measurement averages (the spread of their mean)", "N",
         output)
      ->capture_default_str();
  c->add_flag("--json", f.json, "Print JSON instead of text")->group(output);
  option("--html", f.html_path, "Also write an HTML page with charts of wait against load", "FILE",
         output);

  c->callback([&exit_code, c] { exit_code = run(f, *c); });
}

}  // namespace supportd::app
