// The strict row-by-row CSV reader of time series; every error names the file and line.
#include "obs/anomaly/series_csv.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <vector>

namespace supportd::obs::anomaly {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

// The fields of one line: split at commas, each trimmed and freed of surrounding quotes.
std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    std::string_view field =
        trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start));
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
      field = trim(field.substr(1, field.size() - 2));
    fields.push_back(field);
    if (comma == std::string_view::npos) return fields;
    start = comma + 1;
  }
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// Reads `digits` decimal digits at `at`, advancing it; nullopt when they are not all digits.
std::optional<int> read_digits(std::string_view text, std::size_t& at, std::size_t digits) {
  if (at + digits > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const char c = text[at + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  at += digits;
  return value;
}

bool read_char(std::string_view text, std::size_t& at, char expected) {
  if (at >= text.size() || text[at] != expected) return false;
  ++at;
  return true;
}

std::optional<double> parse_number(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

}  // namespace

std::optional<double> parse_timestamp(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.find('-', 1) == std::string_view::npos) return parse_number(text);  // Unix seconds

  std::size_t at = 0;
  const auto year = read_digits(text, at, 4);
  if (!year || !read_char(text, at, '-')) return std::nullopt;
  const auto month = read_digits(text, at, 2);
  if (!month || !read_char(text, at, '-')) return std::nullopt;
  const auto day = read_digits(text, at, 2);
  if (!day) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year(*year),
                                         std::chrono::month(static_cast<unsigned>(*month)),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok()) return std::nullopt;
  double seconds =
      static_cast<double>(std::chrono::sys_days(date).time_since_epoch().count()) * 86400.0;
  if (at == text.size()) return seconds;

  if (!read_char(text, at, ' ') && !read_char(text, at, 'T')) return std::nullopt;
  const auto hour = read_digits(text, at, 2);
  if (!hour || *hour > 23 || !read_char(text, at, ':')) return std::nullopt;
  const auto minute = read_digits(text, at, 2);
  if (!minute || *minute > 59) return std::nullopt;
  seconds += *hour * 3600.0 + *minute * 60.0;
  if (read_char(text, at, ':')) {
    const auto second = read_digits(text, at, 2);
    if (!second || *second > 60) return std::nullopt;  // 60: a leap second
    seconds += *second;
    if (read_char(text, at, '.')) {
      double scale = 0.1;
      const std::size_t first = at;
      while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
        seconds += (text[at] - '0') * scale;
        scale /= 10;
        ++at;
      }
      if (at == first) return std::nullopt;
    }
  }
  read_char(text, at, 'Z');
  if (at != text.size()) return std::nullopt;
  return seconds;
}

Result<SeriesReader> SeriesReader::open(const std::string& path, std::string value_column) {
  SeriesReader reader;
  if (path == "-") {
    reader.file_ = "<stdin>";
    reader.in_ = &std::cin;
  } else {
    reader.file_ = path;
    reader.owned_ = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*reader.owned_) {
      return Error::make(ErrorCode::kNotFound, "cannot open " + path + ": " + std::strerror(errno));
    }
    reader.in_ = reader.owned_.get();
  }

  std::string header;
  while (header.empty() || trim(header).empty()) {
    if (!std::getline(*reader.in_, header)) {
      return reader.error_at(reader.line_ + 1, fmt::format("the file is empty; expected a header "
                                                           "naming the columns timestamp,{}",
                                                           value_column));
    }
    ++reader.line_;
    if (reader.line_ == 1 && header.starts_with("\xEF\xBB\xBF")) header.erase(0, 3);  // BOM
  }
  const auto names = split_fields(header);
  std::optional<std::size_t> timestamp_at, value_at;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (equal_ignoring_case(names[i], "timestamp") && !timestamp_at) timestamp_at = i;
    if (equal_ignoring_case(names[i], value_column) && !value_at) value_at = i;
  }
  if (!timestamp_at || !value_at) {
    return reader.error_at(
        reader.line_, fmt::format("expected a header naming the columns timestamp,{}, found \"{}\"",
                                  value_column, std::string(trim(header))));
  }
  reader.timestamp_column_ = *timestamp_at;
  reader.value_column_ = *value_at;
  reader.columns_ = std::max(*timestamp_at, *value_at) + 1;
  return reader;
}

Result<std::optional<SeriesPoint>> SeriesReader::next() {
  std::string text;
  while (std::getline(*in_, text)) {
    ++line_;
    if (trim(text).empty()) continue;
    const auto fields = split_fields(text);
    if (fields.size() < columns_) {
      return error_at(
          line_, fmt::format("expected at least {} fields, found {}", columns_, fields.size()));
    }
    SeriesPoint point;
    point.line = line_;
    point.timestamp = std::string(fields[timestamp_column_]);
    const auto seconds = parse_timestamp(point.timestamp);
    if (!seconds) {
      return error_at(line_, point.timestamp.empty()
                                 ? std::string("the timestamp is empty")
                                 : fmt::format("\"{}\" is not a timestamp (expected "
                                               "YYYY-MM-DD HH:MM:SS or Unix seconds)",
                                               point.timestamp));
    }
    const auto value = parse_number(fields[value_column_]);
    if (!value) {
      return error_at(line_, fields[value_column_].empty()
                                 ? std::string("the value is empty")
                                 : fmt::format("\"{}\" is not a finite number",
                                               std::string(fields[value_column_])));
    }
    if (rows_ > 0 && *seconds < latest_seconds_ - kClockSetBackSeconds) {
      return error_at(line_, fmt::format("timestamp {} is earlier than {} (line {}); rows must be "
                                         "in time order",
                                         point.timestamp, latest_timestamp_, latest_line_));
    }
    if (rows_ > 0 && *seconds < previous_seconds_) {
      warnings_.push_back(
          fmt::format("{}:{}: timestamp {} is earlier than the previous row's ({}); "
                      "taken as a clock set back (by at most an hour)",
                      file_, line_, point.timestamp, previous_timestamp_));
    }
    point.seconds = *seconds;
    point.value = *value;
    previous_seconds_ = *seconds;
    previous_timestamp_ = point.timestamp;
    if (rows_ == 0 || *seconds > latest_seconds_) {
      latest_seconds_ = *seconds;
      latest_timestamp_ = point.timestamp;
      latest_line_ = line_;
    }
    ++rows_;
    return std::optional<SeriesPoint>(std::move(point));
  }
  if (in_->bad()) return Error::make(ErrorCode::kIo, "cannot read " + file_);
  if (rows_ == 0) return error_at(line_, "the file has a header but no rows");
  return std::optional<SeriesPoint>();
}

Error SeriesReader::error_at(std::int64_t line, const std::string& what) const {
  return Error::invalid(fmt::format("{}:{}: {}", file_, line, what));
}

}  // namespace supportd::obs::anomaly
