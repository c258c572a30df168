// The strict CSV reader (csv.h): quoted fields across lines, a stray quote or a short row an error
// naming the file and line, invalid UTF-8 and NUL bytes refused.
#include "kb/import/csv.h"

#include <algorithm>

#include "core/read_file.h"
#include "core/utf8.h"

namespace supportd::kb {
namespace {

Error csv_error(const std::string& file, int line, const std::string& message) {
  return Error::invalid(file + ":" + std::to_string(line) + ": " + message);
}

}  // namespace

int CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == name) return static_cast<int>(i);
  }
  return -1;
}

Result<CsvTable> parse_csv(std::string_view text, const std::string& file) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (const std::size_t bad = first_invalid_utf8(text); bad != text.size()) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + bad, '\n'));
    return csv_error(file, line, "invalid UTF-8 (save the file as UTF-8)");
  }
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + nul, '\n'));
    return csv_error(file, line, "a NUL byte (the file is binary or damaged)");
  }
  CsvTable table;
  table.file = file;
  std::vector<CsvRow> records;
  int line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    // Blank lines separate nothing and hold no data.
    if (text[i] == '\n' || (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
      i += text[i] == '\r' ? 2 : 1;
      ++line;
      continue;
    }
    CsvRow row;
    row.line = line;
    std::string field;
    bool record_done = false;
    while (!record_done) {
      field.clear();
      if (i < text.size() && text[i] == '"') {
        const int quote_line = line;
        ++i;
        bool closed = false;
        while (i < text.size()) {
          if (text[i] == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              field += '"';
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          if (text[i] == '\n') ++line;
          field += text[i++];
        }
        if (!closed) return csv_error(file, quote_line, "quoted field is never closed");
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          return csv_error(file, line, "unexpected text after a closing quote");
        }
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '\n' &&
               !(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
          if (text[i] == '"') {
            return csv_error(file, line,
                             "quote inside an unquoted field (quote the whole field and double "
                             "the quotes inside it)");
          }
          field += text[i++];
        }
      }
      row.fields.push_back(field);
      if (i >= text.size()) {
        record_done = true;
      } else if (text[i] == ',') {
        ++i;
      } else {
        i += text[i] == '\r' ? 2 : 1;
        ++line;
        record_done = true;
      }
    }
    records.push_back(std::move(row));
  }
  if (records.empty()) return csv_error(file, 1, "the file is empty (a header row is required)");
  table.header = std::move(records.front().fields);
  for (std::size_t c = 0; c < table.header.size(); ++c) {
    if (table.header[c].empty()) {
      return csv_error(file, records.front().line,
                       "column " + std::to_string(c + 1) + " of the header has no name");
    }
    // Two columns of one name: which one a reader takes would be a silent choice.
    const auto first = std::find(table.header.begin(), table.header.end(), table.header[c]);
    if (first != table.header.begin() + static_cast<std::ptrdiff_t>(c)) {
      return csv_error(file, records.front().line,
                       "column " + std::to_string(c + 1) + " of the header, '" + table.header[c] +
                           "', repeats column " + std::to_string(first - table.header.begin() + 1));
    }
  }
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].fields.size() != table.header.size()) {
      return csv_error(file, records[r].line,
                       "row has " + std::to_string(records[r].fields.size()) +
                           " fields but the header has " + std::to_string(table.header.size()));
    }
    table.rows.push_back(std::move(records[r]));
  }
  return table;
}

Result<CsvTable> read_csv_file(const std::string& path) {
  auto text = read_text_file(path);
  if (!text) return text.error();
  return parse_csv(*text, path);
}

std::string format_csv_row(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    const std::string& field = fields[i];
    if (field.find_first_of(",\"\r\n") == std::string::npos) {
      out += field;
      continue;
    }
    out += '"';
    for (char c : field) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  out += '\n';
  return out;
}

}  // namespace supportd::kb
