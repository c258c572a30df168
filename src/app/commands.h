// The command-line verbs. Each add_* registers a subcommand on the CLI11 app; the callback runs
// the verb and stores the process exit code: 0 done, 1 the work failed, 2 a usage error.
#pragma once

#include <cstdio>
#include <initializer_list>
#include <string>

#include <fmt/format.h>

#include "core/status.h"

namespace CLI {
class App;
}

namespace supportd::app {

// Prints "error: MESSAGE" on stderr and returns the verb's exit code: 2 when the error is the
// user's input (its code is one of `usage`), 1 when the work failed.
inline int report_failure(const Error& error,
                          std::initializer_list<ErrorCode> usage = {ErrorCode::kInvalidArgument}) {
  fmt::print(stderr, "error: {}\n", error.message);
  for (ErrorCode code : usage) {
    if (error.code == code) return 2;
  }
  return 1;
}

// A file a verb will write when done (a report): kInvalidArgument naming `flag` when `path` is
// empty, a directory, or in a directory that does not exist. Checked before long work starts.
Status check_output_file(const std::string& flag, const std::string& path);

void add_model_command(CLI::App& app, int& exit_code);
void add_serve_command(CLI::App& app, int& exit_code);
void add_bench_command(CLI::App& app, int& exit_code);
void add_encoder_command(CLI::App& app, int& exit_code);
void add_kb_command(CLI::App& app, int& exit_code);
void add_capacity_command(CLI::App& app, int& exit_code);
void add_tune_command(CLI::App& app, int& exit_code);
void add_anomaly_command(CLI::App& app, int& exit_code);
void add_drill_command(CLI::App& app, int& exit_code);

}  // namespace supportd::app
