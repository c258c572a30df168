// The flags of `supportd bench` that say what load to send (target, load, bounds, workload,
// SLO), declared on a CLI11 command and turned into bench::BenchOptions. Shared by `bench`
// and by `supportd tune`, whose trials send the workload its bench flags describe.
// Thread-safety: none; main's thread declares, parses and prepares.
#pragma once

#include <string>
#include <vector>

#include "bench/options.h"
#include "core/status.h"

namespace CLI {
class App;
}

namespace supportd::app {

// The raw flags (the files and modes only `bench` has included).
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

// Declares the target, load, run, workload and SLO flags on `command`, bound to `flags`.
// REQUIRES: flags outlives the command's parse and prepare().
void add_bench_flags(CLI::App* command, BenchFlags& flags);

// After CLI11 has parsed: turns the raw flags into flags.options and validates them
// (bench::validate). kInvalidArgument naming the flag; trace errors name the file and line.
Status prepare(BenchFlags& flags, const CLI::App& command);

}  // namespace supportd::app
