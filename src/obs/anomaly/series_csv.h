// Time series in CSV, as `supportd anomaly score` reads them: a header naming the columns
// (`timestamp` and the value column, `value` by default; other columns are ignored), then one
// row per point in time order. Read one row at a time, strictly: every problem is an error
// naming the file and the line.
// Thread-safety: a SeriesReader has one owner; parse_timestamp is a pure function.
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::obs::anomaly {

struct SeriesPoint {
  std::string timestamp;  // as written in the file (trimmed)
  double seconds = 0;     // the timestamp as seconds since 1970-01-01 (UTC when no zone is given)
  double value = 0;       // finite
  std::int64_t line = 0;  // 1-based line of the file
};

// Seconds since 1970-01-01 of "YYYY-MM-DD HH:MM[:SS[.fraction]]" (or with a 'T' between date
// and time, and an optional trailing 'Z'), of a bare "YYYY-MM-DD", or of a plain number (Unix
// seconds). nullopt for anything else, including out-of-range fields (month 13, 25:00).
std::optional<double> parse_timestamp(std::string_view text);

class SeriesReader {
 public:
  // Opens `path` ("-" reads standard input) and reads its header. Fails (kNotFound) when the
  // file cannot be opened, and (kInvalidArgument, naming file:line) when it is empty or the header
  // lacks `timestamp` or `value_column`.
  static Result<SeriesReader> open(const std::string& path, std::string value_column = "value");

  // The next point, or nullopt at the end of the file. Fails (kInvalidArgument, naming
  // file:line) on a row with too few fields, an empty or unreadable timestamp, a value that is
  // not a finite number, or a timestamp out of time order; and at the end of a file that held
  // no row at all. Blank lines are skipped. After a failure, do not call again.
  // Time order: equal timestamps are allowed; so is a step back that stays within one hour of
  // the latest timestamp seen (a local clock set back, as at the end of daylight saving time:
  // NAB's machine_temperature_system_failure.csv repeats an hour so), which adds a warning.
  Result<std::optional<SeriesPoint>> next();

  // Warnings so far, each naming file:line (rows accepted despite a step back in time).
  const std::vector<std::string>& warnings() const { return warnings_; }

  const std::string& file() const { return file_; }

  static constexpr double kClockSetBackSeconds = 3600;

 private:
  SeriesReader() = default;
  Error error_at(std::int64_t line, const std::string& what) const;

  std::string file_;
  std::unique_ptr<std::istream> owned_;  // the opened file; null when reading standard input
  std::istream* in_ = nullptr;
  std::size_t timestamp_column_ = 0;
  std::size_t value_column_ = 0;
  std::size_t columns_ = 0;
  std::int64_t line_ = 0;
  std::int64_t rows_ = 0;
  double previous_seconds_ = 0;
  double latest_seconds_ = 0;
  std::string previous_timestamp_;
  std::string latest_timestamp_;
  std::int64_t latest_line_ = 0;
  std::vector<std::string> warnings_;
};

}  // namespace supportd::obs::anomaly
