// CSV as RFC 4180 describes it (quoted fields may hold commas, quotes and newlines), read
// strictly: every problem is an error naming the file and the line. Thread-safe (pure functions).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::kb {

struct CsvRow {
  int line = 0;  // line where the record starts (1-based)
  std::vector<std::string> fields;
};

struct CsvTable {
  std::string file;
  std::vector<std::string> header;
  std::vector<CsvRow> rows;  // every row has header.size() fields

  // Index of the column named `name`, or -1.
  int column(std::string_view name) const;
};

// Parses `text` read from `file` (named in errors). The first record is the header; a UTF-8
// byte-order mark is dropped, blank lines are allowed, anything else malformed fails: a row
// with the wrong number of fields, a stray or unterminated quote, invalid UTF-8, a NUL byte, a
// header naming one column twice.
Result<CsvTable> parse_csv(std::string_view text, const std::string& file);

// Reads and parses a file.
Result<CsvTable> read_csv_file(const std::string& path);

// One CSV line (with "\n"), quoting fields that need it.
std::string format_csv_row(const std::vector<std::string>& fields);

}  // namespace supportd::kb
