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

#include "app/bench_flags.h"
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

// Exit codes: 0 done; 1 the run or an output file failed; 2 bad input (flags, and files given
// that do not exist or are not what they should be).
int fail(const Error& error) {
  return report_failure(
      error, {ErrorCode::kInvalidArgument, ErrorCode::kNotFound, ErrorCode::kUnsupported});
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

// What is written where.
void add_output_flags(CLI::App* b, BenchFlags& f) {
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
  add_bench_flags(b, f);
  add_output_flags(b, f);
  add_other_modes(b, f);
  b->callback([&exit_code, b] { exit_code = run(f, *b); });
}

}  // namespace supportd::app
