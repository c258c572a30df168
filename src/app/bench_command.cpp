// `supportd bench`: the load tester. Parses the flags into bench::BenchOptions, runs, prints
// the summary and writes the requested files; or compares two JSON reports; or computes the
// steady-state decode rate from a token log.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "app/commands.h"
#include "bench/compare.h"
#include "bench/options.h"
#include "bench/report.h"
#include "bench/report_html.h"
#include "bench/report_json.h"
#include "bench/report_text.h"
#include "bench/runner.h"
#include "bench/token_log.h"
#include "core/same_file.h"
#include "core/temp_file.h"

namespace supportd::app {
namespace {

using bench::Distribution;

// Exit codes: 0 done; 1 the run or an output file failed; 2 bad input (flags, and files given
// that do not exist or are not what they should be).
int fail(const Error& error) {
  return report_failure(
      error, {ErrorCode::kInvalidArgument, ErrorCode::kNotFound, ErrorCode::kUnsupported});
}

struct BenchFlags {
  bench::BenchOptions options;
  std::string endpoint = "chat";
  std::string think_time = "0";
  std::string prompt_tokens;  // empty: the preset's
  std::string output_tokens;
  int system_prompt_tokens = -1;  // -1: the preset's
  std::string priority_mix;
  std::string tenants;
  double start_timeout_s = 0;
  bool no_priority_field = false;
  bool no_poll = false;
  bool no_progress = false;
  std::string json_path, html_path, tokens_path;
  bool report_steady_decode = false;
  std::vector<std::string> compare;
  std::string steady_decode_from;
};

// Turns the raw flags into options; errors name the flag.
Status prepare(BenchFlags& f, const CLI::App& command) {
  bench::BenchOptions& o = f.options;
  if (f.endpoint != "chat" && f.endpoint != "completions")
    return Error::invalid("--endpoint must be chat or completions", "endpoint");
  o.chat = f.endpoint == "chat";
  if (command.count("--rate") > 0) o.mode = bench::LoadMode::kPoisson;
  if (command.count("--trace") > 0) o.mode = bench::LoadMode::kTrace;
  if (auto status = bench::apply_preset(o.preset, o.workload); !status) return status;
  if (!f.prompt_tokens.empty()) {
    auto d = Distribution::parse(f.prompt_tokens, "--prompt-tokens", 1);
    if (!d) return d.error();
    o.workload.prompt_tokens = *d;
  }
  if (!f.output_tokens.empty()) {
    auto d = Distribution::parse(f.output_tokens, "--output-tokens", 1);
    if (!d) return d.error();
    o.workload.output_tokens = *d;
  }
  const bool system_prompt = command.count("--system-prompt-tokens") > 0;
  if (system_prompt && f.system_prompt_tokens < 0)
    return Error::invalid("--system-prompt-tokens: must not be negative", "system-prompt-tokens");
  if (!f.prompt_tokens.empty() || !f.output_tokens.empty() || system_prompt)
    o.preset += " (modified)";
  if (system_prompt) o.workload.system_prompt_tokens = f.system_prompt_tokens;
  auto think = Distribution::parse(f.think_time, "--think-time", 0);
  if (!think) return think.error();
  o.think_time = *think;
  if (!f.priority_mix.empty()) {
    auto mix = bench::parse_priority_mix(f.priority_mix);
    if (!mix) return mix.error();
    o.workload.priority_mix = *mix;
  }
  if (!f.tenants.empty()) {
    auto tenants = bench::parse_tenants(f.tenants);
    if (!tenants) return tenants.error();
    o.workload.tenants = std::move(*tenants);
  }
  if (command.count("--timeout") > 0) o.start_timeout_s = f.start_timeout_s;
  o.priority_field = !f.no_priority_field;
  o.poll_server = !f.no_poll;
  o.progress = !f.no_progress;
  // In the options 0 means "not given" (no bound, or the default of 100 requests); given on the
  // command line, 0 would silently mean that too, so it is refused.
  if (command.count("--requests") > 0 && o.requests < 1)
    return Error::invalid("--requests: must be at least 1 (leave it out for 100)", "requests");
  if (command.count("--duration") > 0 && !(o.duration_s > 0))
    return Error::invalid("--duration: must be more than 0 seconds", "duration");
  for (const auto& [flag, value] :
       {std::pair{"--slo-ttft", o.slo_ttft_ms}, {"--slo-e2e", o.slo_e2e_ms}}) {
    if (command.count(flag) > 0 && !(value > 0)) {
      return Error::invalid(
          std::string(flag) + ": must be more than 0 ms (leave it out for no bound)", flag + 2);
    }
  }
  return bench::validate(o);
}

// Every output file named on the command line must be writable before the first request is
// sent (a run can take hours), and no two of them, nor the trace read, may be one file.
Status check_outputs(const BenchFlags& f, const CLI::App& command) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> taken;  // flag, path
  if (!f.options.trace_path.empty()) taken.emplace_back("--trace", f.options.trace_path);
  for (const auto& [flag, path] :
       {std::pair<const char*, const std::string&>{"--json", f.json_path},
        {"--html", f.html_path},
        {"--record-tokens", f.tokens_path}}) {
    const std::string name = flag + 2;
    if (command.count(flag) == 0) continue;
    if (path.empty()) return Error::invalid(std::string(flag) + ": the file name is empty", name);
    std::error_code ec;
    const fs::path file(path);
    const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
    if (fs::is_directory(file, ec))
      return Error::invalid(std::string(flag) + ": " + path + " is a directory", name);
    if (!fs::is_directory(parent, ec)) {
      return Error::invalid(
          std::string(flag) + ": cannot write " + path + " (no directory " + parent.string() + ")",
          name);
    }
    // Reports are written beside the file and renamed onto it: its directory must take a new
    // file, and an existing file must be one its owner lets us replace.
    const bool exists = fs::exists(file, ec);
    if (::access(parent.c_str(), W_OK) != 0 || (exists && ::access(file.c_str(), W_OK) != 0)) {
      return Error::invalid(
          std::string(flag) + ": cannot write " + path + " (" + std::strerror(errno) + ")", name);
    }
    for (const auto& [other, other_path] : taken) {
      if (same_file(path, other_path)) {
        return Error::invalid(std::string(flag) + ": " + path + " is also the file of " + other,
                              name);
      }
    }
    taken.emplace_back(flag, path);
  }
  return {};
}

// `--compare A.json B.json`: the two reports side by side.
int compare_reports(const BenchFlags& f) {
  if (f.compare.size() != 2) {
    return fail(
        Error::invalid(fmt::format("--compare takes exactly two reports, A.json B.json (got {})",
                                   f.compare.size()),
                       "compare"));
  }
  auto table = bench::compare_reports(f.compare[0], f.compare[1]);
  if (!table) return fail(table.error());
  fmt::print("{}", *table);
  return 0;
}

// `--steady-decode-from FILE`: the steady decode rate of a token log written earlier.
int steady_decode_from(const BenchFlags& f) {
  auto steady = bench::steady_decode_from_log(f.steady_decode_from);
  if (!steady) return fail(steady.error());
  if (f.report_steady_decode) {
    if (!steady->overlapping) fmt::print(stderr, "{}\n", bench::format_steady_decode(*steady));
    fmt::print("{:.3f}\n", steady->tokens_per_s);
  } else {
    fmt::print("{}\n", bench::format_steady_decode(*steady));
  }
  return 0;
}

// The files asked for (--json, --html, --record-tokens); the exit code is 1 when one of them
// could not be written (the others still are).
int write_outputs(const BenchFlags& f, const bench::RunRecord& record,
                  const bench::Report& report) {
  int code = 0;
  auto output = [&](const std::string& path, const std::string& what, auto make) {
    if (path.empty()) return;
    if (auto status = write_file_atomically(path, make()); !status) {
      code = fail(status.error());
    } else {
      fmt::print(stderr, "wrote {} {}\n", what, path);
    }
  };
  output(f.json_path, "the JSON report", [&] { return bench::report_json(report); });
  output(f.html_path, "the HTML report", [&] { return bench::report_html(report); });
  if (!f.tokens_path.empty()) {
    if (auto status = bench::write_token_log(record, f.options.workload, f.tokens_path); !status) {
      code = fail(status.error());
    } else {
      fmt::print(stderr, "wrote the token log {}\n", f.tokens_path);
    }
  }
  return code;
}

// The load test: options checked, outputs checked, the run, the summary, the files.
int load_test(BenchFlags& f, const CLI::App& command) {
  if (auto status = prepare(f, command); !status) return fail(status.error());
  if (auto status = check_outputs(f, command); !status) return fail(status.error());
  auto record = bench::run_benchmark(f.options);
  if (!record) return fail(record.error());
  const bench::Report report = bench::build_report(*record, f.options);
  const std::string summary = bench::format_summary(report);
  if (f.report_steady_decode) {
    fmt::print(stderr, "{}", summary);
    fmt::print("{:.3f}\n", report.steady.tokens_per_s);
  } else {
    fmt::print("{}", summary);
  }
  return write_outputs(f, *record, report);
}

int run(BenchFlags& f, const CLI::App& command) {
  if (command.count("--compare") > 0) return compare_reports(f);
  if (command.count("--steady-decode-from") > 0) return steady_decode_from(f);
  return load_test(f, command);
}

constexpr const char* kFooter =
    "Closed loop by default (--concurrency users); --rate or --trace make it open loop. "
    "Requests stop after --requests measured requests (default 100) or --duration seconds, "
    "after the warm-up; requests in flight then finish (each within --request-timeout); "
    "--max-time caps the whole run.\n"
    "Prompts are words from a fixed list, each a single token in common BPE/SentencePiece "
    "vocabularies (N words ~ N tokens); the summary shows the server's own prompt count.\n"
    "Distributions (DIST): N | uniform:A-B | normal:MEAN,STD (clamped) | exp:MEAN.\n"
    "Trace file: one arrival per line, TIME_S[,PROMPT_TOKENS[,OUTPUT_TOKENS[,PRIORITY]]].\n"
    "Steady decode = token events of measured ok streams timed within [the latest first "
    "token, the earliest last token] / that window's length: the aggregate decode rate while "
    "all streams decode (use --concurrency N --requests N for one wave of N streams).\n"
    "Exit codes: 0 done (even with failed requests; see the report), 1 the run or an output "
    "failed, 2 bad input.";

// Which server, which endpoint, which model, which key.
void add_target_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string target = "Target";
  b->add_option("--url", o.url, "Base URL of the server (a trailing /v1 is fine)")
      ->type_name("URL")
      ->capture_default_str()
      ->group(target);
  b->add_option("--endpoint", f.endpoint, "chat (/v1/chat/completions) or completions")
      ->type_name("NAME")
      ->capture_default_str()
      ->group(target);
  b->add_option("--model", o.model, "Model id to send (default: the first of GET /v1/models)")
      ->type_name("ID")
      ->group(target);
  b->add_option("--api-key", o.api_key, "Bearer key for every request (when no --tenants)")
      ->type_name("KEY")
      ->group(target);
}

// How requests arrive: closed loop (users) or open loop (a rate, a trace).
void add_load_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string load = "Load";
  auto* concurrency = b->add_option("--concurrency", o.concurrency,
                                    "Closed loop: this many users, each waiting for its answer")
                          ->type_name("N")
                          ->capture_default_str()
                          ->group(load);
  b->add_option("--think-time", f.think_time,
                "Closed loop: seconds (DIST) between a user's requests")
      ->type_name("DIST")
      ->capture_default_str()
      ->group(load);
  b->add_option("--ramp-up", o.ramp_up_s, "Closed loop: start the users evenly over S seconds")
      ->type_name("S")
      ->group(load);
  auto* rate = b->add_option("--rate", o.rate, "Open loop: Poisson arrivals per second")
                   ->type_name("R")
                   ->group(load);
  auto* trace =
      b->add_option("--trace", o.trace_path, "Open loop: arrival times from FILE (see below)")
          ->type_name("FILE")
          ->group(load);
  b->add_option("--trace-speed", o.trace_speed, "Divide the trace's times by X (2 = twice as fast)")
      ->type_name("X")
      ->capture_default_str()
      ->group(load);
  concurrency->excludes(rate)->excludes(trace);
  rate->excludes(trace);
}

// What is measured and for how long: warm-up, when to stop, timeouts, limits, the seed.
void add_run_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string load = "Load";
  b->add_option("--warmup", o.warmup_s, "Requests sent in the first S seconds are not measured")
      ->type_name("S")
      ->group(load);
  b->add_option("--warmup-requests", o.warmup_requests, "The first N requests are not measured")
      ->type_name("N")
      ->group(load);
  b->add_option("--requests", o.requests,
                "Stop after N measured requests (default 100 when no --duration)")
      ->type_name("N")
      ->group(load);
  b->add_option("--duration", o.duration_s,
                "Stop sending S seconds after the first measured request")
      ->type_name("S")
      ->group(load);
  b->add_option("--request-timeout", o.request_timeout_s, "Client timeout per request, seconds")
      ->type_name("S")
      ->capture_default_str()
      ->group(load);
  b->add_option("--max-time", o.max_time_s,
                "Cut the whole run after S seconds, abandoning requests in flight (0: no cap)")
      ->type_name("S")
      ->group(load);
  b->add_option("--connect-timeout", o.connect_timeout_s, "Client timeout per connection, seconds")
      ->type_name("S")
      ->capture_default_str()
      ->group(load);
  b->add_option("--max-outstanding", o.max_outstanding,
                "Open loop: arrivals beyond N in flight become client_limit errors")
      ->type_name("N")
      ->capture_default_str()
      ->group(load);
  b->add_option("--seed", o.workload.seed, "Seed of every random choice (same seed, same requests)")
      ->type_name("N")
      ->capture_default_str()
      ->group(load);
}

// What each request asks: prompt and answer lengths, repetition, classes, tenants.
void add_workload_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string workload = "Workload";
  b->add_option("--preset", o.preset,
                "256-128 (256-word questions, 128 output tokens) or chat (128-word system prompt, "
                "questions uniform:30-80, answers uniform:64-256)")
      ->type_name("NAME")
      ->capture_default_str()
      ->group(workload);
  b->add_option("--prompt-tokens", f.prompt_tokens, "Question length in words (DIST)")
      ->type_name("DIST")
      ->group(workload);
  b->add_option("--output-tokens", f.output_tokens, "max_tokens (DIST), with ignore_eos")
      ->type_name("DIST")
      ->group(workload);
  b->add_option("--system-prompt-tokens", f.system_prompt_tokens,
                "Words of the system prompt every request shares")
      ->type_name("N")
      ->group(workload);
  b->add_option("--repeat-ratio", o.workload.repeat_ratio,
                "Share of requests repeating an earlier question exactly (0-1)")
      ->type_name("R")
      ->capture_default_str()
      ->group(workload);
  b->add_option("--priority-mix", f.priority_mix,
                "Weights of the classes, e.g. high=1,normal=8,low=1 (default: all normal)")
      ->type_name("LIST")
      ->group(workload);
  b->add_option("--tenants", f.tenants,
                "NAME=KEY[:WEIGHT],...: each request picks a tenant by weight and sends its key")
      ->type_name("LIST")
      ->group(workload);
  b->add_option("--timeout", f.start_timeout_s,
                "Send \"timeout\": S (supportd refuses with 503 what cannot start in time)")
      ->type_name("S")
      ->group(workload);
  b->add_option("--temperature", o.temperature, "Sampling temperature")
      ->type_name("T")
      ->capture_default_str()
      ->group(workload);
  b->add_flag("--no-priority-field", f.no_priority_field,
              "Send the class only as X-Priority, not as the body field \"priority\" (vLLM wants "
              "an integer there)")
      ->group(workload);
}

// The SLOs goodput counts against, and what is written where.
void add_slo_and_output_flags(CLI::App* b, BenchFlags& f) {
  bench::BenchOptions& o = f.options;
  const std::string slo = "SLO";
  b->add_option("--slo-ttft", o.slo_ttft_ms,
                "Goodput: time to first token at most MS (more than 0)")
      ->type_name("MS")
      ->group(slo);
  b->add_option("--slo-e2e", o.slo_e2e_ms, "Goodput: end-to-end latency at most MS (more than 0)")
      ->type_name("MS")
      ->group(slo);

  const std::string output = "Output";
  b->add_option("--json", f.json_path, "Write the report as JSON")
      ->type_name("FILE")
      ->group(output);
  b->add_option("--html", f.html_path, "Write an HTML report with SVG charts")
      ->type_name("FILE")
      ->group(output);
  b->add_option("--record-tokens", f.tokens_path, "Write per-token timestamps (CSV)")
      ->type_name("FILE")
      ->group(output);
  b->add_flag("--report-steady-decode", f.report_steady_decode,
              "Print only the steady decode rate (tokens/s) on stdout; the summary goes to stderr")
      ->group(output);
  b->add_flag("--no-poll", f.no_poll, "Do not poll the server's /v1/stats or /metrics")
      ->group(output);
  b->add_flag("--no-progress", f.no_progress, "No live progress line")->group(output);
}

// --compare and --steady-decode-from: reading earlier results instead of running.
void add_other_modes(CLI::App* b, BenchFlags& f) {
  const std::string other = "Other modes";
  b->add_option("--compare", f.compare, "Print two JSON reports side by side with ratios B/A")
      ->expected(1, 1 << 16)  // compare_reports() requires exactly two, with a message saying so
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("A.json B.json")
      ->group(other);
  b->add_option("--steady-decode-from", f.steady_decode_from,
                "Compute the steady decode rate from a --record-tokens CSV")
      ->type_name("FILE")
      ->group(other);
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
  static BenchFlags f;
  CLI::App* b = app.add_subcommand(
      "bench",
      "Load-test an OpenAI-compatible server (supportd, llama-server, vLLM) with streaming "
      "requests: TTFT, ITL, TPOT, end-to-end latency, throughput and goodput per priority class");
  b->footer(kFooter);
  b->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // last one wins
  add_target_flags(b, f);
  add_load_flags(b, f);
  add_run_flags(b, f);
  add_workload_flags(b, f);
  add_slo_and_output_flags(b, f);
  add_other_modes(b, f);
  b->callback([&exit_code, b] { exit_code = run(f, *b); });
}

}  // namespace supportd::app
