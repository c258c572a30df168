// When open-loop requests arrive: a Poisson process of a given rate, or the times of a trace
// file (optionally sped up), each arrival possibly fixing its request's lengths and class.
// Thread-safety: not thread-safe; one schedule per run.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench/workload.h"
#include "core/status.h"

namespace supportd::bench {

struct Arrival {
  double time_s = 0;       // seconds after the run's start
  RequestOverride values;  // from the trace; empty for Poisson arrivals
};

// Reads a trace: one arrival per line, "TIME_S[,PROMPT_TOKENS[,OUTPUT_TOKENS[,PRIORITY]]]"
// (commas or blanks between fields), times in seconds from the start and non-decreasing.
// Blank lines and '#' comments are skipped, and so is a first line of column names.
// Errors: kNotFound when the file cannot be read, kInvalidArgument naming "FILE:LINE" and the
// field otherwise, and for a trace without arrivals.
Result<std::vector<Arrival>> read_trace(const std::string& path);

class ArrivalSchedule {
 public:
  // Exponential gaps with mean 1/rate (rate > 0), from a generator seeded with `seed`.
  static ArrivalSchedule poisson(double rate, std::uint64_t seed);
  // The trace's arrivals, their times divided by `speed` (> 0).
  static ArrivalSchedule trace(std::vector<Arrival> arrivals, double speed);

  // The next arrival, or nothing when a trace is exhausted (a Poisson schedule never is).
  std::optional<Arrival> next();

 private:
  double rate_ = 0;
  std::mt19937_64 random_;
  double clock_s_ = 0;
  std::vector<Arrival> trace_;
  std::size_t position_ = 0;
};

}  // namespace supportd::bench
