// `supportd anomaly score`: the streaming anomaly detector the server runs (src/obs/anomaly),
// on a CSV file: reads `timestamp,value` rows one at a time and writes `timestamp,anomaly_score`
// for every row, in order, each score computed before the next row is read.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "app/commands.h"
#include "core/temp_file.h"
#include "obs/anomaly/detector.h"
#include "obs/anomaly/series_csv.h"

namespace supportd::app {
namespace {

namespace anomaly = obs::anomaly;

// Exit codes: 0 done; 1 the output could not be written; 2 bad input (flags, the input file).
int fail(const Error& error) {
  return report_failure(error, {ErrorCode::kInvalidArgument, ErrorCode::kNotFound});
}

// CPU time of this process: what the detector costs, whatever else the machine is doing.
double cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

struct ScoreFlags {
  std::string input, output;
  std::vector<std::string> settings;  // NAME=VALUE
  bool quiet = false;
};

std::string parameter_list() {
  std::string text =
      "Detector parameters (--set NAME=VALUE; the defaults are what every "
      "signal and file is scored with):\n";
  for (const auto& option : anomaly::describe_options({}))
    text += fmt::format("  {:<24} {:>6}  {}\n", option.name, option.value, option.help);
  return text;
}

Result<anomaly::DetectorOptions> detector_options(const ScoreFlags& flags) {
  anomaly::DetectorOptions options;
  for (const std::string& setting : flags.settings) {
    if (auto status = anomaly::apply_setting(options, setting); !status)
      return Error::invalid("--set " + status.error().message);
  }
  return options;
}

int score(const ScoreFlags& flags) {
  auto options = detector_options(flags);
  if (!options) return fail(options.error());
  auto reader = anomaly::SeriesReader::open(flags.input);
  if (!reader) return fail(reader.error());

  const auto started = std::chrono::steady_clock::now();
  const double cpu_started = cpu_seconds();
  anomaly::AnomalyDetector detector(*options);
  std::string out = "timestamp,anomaly_score\n";
  std::size_t rows = 0;

  while (true) {
    auto point = reader->next();
    if (!point) return fail(point.error());
    if (!*point) break;
    const double score = detector.update((*point)->value).score;
    out += fmt::format("{},{:.6f}\n", (*point)->timestamp, score);
    ++rows;
  }
  for (const std::string& warning : reader->warnings())
    fmt::print(stderr, "warning: {}\n", warning);

  if (flags.output == "-") {
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (std::fflush(stdout) != 0) return fail(Error::make(ErrorCode::kIo, "cannot write stdout"));
  } else if (auto status = write_file_atomically(flags.output, out); !status) {
    return fail(status.error());
  }
  if (!flags.quiet) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const double cpu = cpu_seconds() - cpu_started;
    fmt::print(stderr,
               "{} rows scored in {:.3f} s ({:.1f} us of CPU per row, reading and writing "
               "included) -> {}\n",
               rows, wall, 1e6 * cpu / static_cast<double>(rows),
               flags.output == "-" ? "stdout" : flags.output);
  }
  return 0;
}

}  // namespace

void add_anomaly_command(CLI::App& app, int& exit_code) {
  CLI::App* anomaly_app =
      app.add_subcommand("anomaly", "Streaming anomaly detection on time series (CSV files)");
  anomaly_app->require_subcommand(1);

  static ScoreFlags flags;
  CLI::App* score_app = anomaly_app->add_subcommand(
      "score",
      "Score every row of a timestamp,value CSV file (header first, rows in time order) with the "
      "server's streaming detector; writes timestamp,anomaly_score with scores in [0, 1]. Each "
      "row is scored from it and the rows before it only. Exit codes: 0 done, 2 bad input (the "
      "error names the file and line), 1 the output could not be written.");
  score_app->add_option("--input", flags.input, "Input CSV (timestamp,value; - for stdin)")
      ->required();
  score_app
      ->add_option("--output", flags.output, "Output CSV (timestamp,anomaly_score; - for stdout)")
      ->required();
  score_app->add_option("--set", flags.settings,
                        "Override a detector parameter, NAME=VALUE (repeatable; see below)");
  score_app->add_flag("--quiet", flags.quiet, "No summary line on stderr");
  score_app->footer(parameter_list());
  score_app->callback([&exit_code] { exit_code = score(flags); });
}

}  // namespace supportd::app
