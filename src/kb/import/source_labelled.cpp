// Labelled questions: every label becomes an intent whose examples are its questions.
#include <map>

#include "core/text.h"
#include "kb/import/sources.h"

namespace supportd::kb {

Result<ParsedSource> parse_labelled_csv(const CsvTable& table, const std::string& text_column,
                                        const std::string& label_column) {
  const int text_index = table.column(text_column);
  const int label_index = table.column(label_column);
  std::string columns;
  for (const auto& name : table.header)
    columns += (columns.empty() ? "" : ", ") + name;
  if (text_index < 0 || label_index < 0) {
    return Error::invalid(table.file + ":1: no column named '" +
                          (text_index < 0 ? text_column : label_column) +
                          "' (the columns are: " + columns + ")");
  }
  ParsedSource parsed;
  parsed.file = table.file;
  parsed.format = SourceFormat::kLabelledCsv;
  if (table.header.size() > 2) {
    parsed.notes.push_back(table.file + ":1: only the columns '" + text_column + "' and '" +
                           label_column + "' are imported (the file has: " + columns + ")");
  }
  std::map<std::string, std::size_t> by_label;
  std::map<std::string, std::string> label_of_text;
  int conflicting = 0;
  int first_conflict_line = 0;
  for (const CsvRow& row : table.rows) {
    ++parsed.records;
    const std::string text(trim(row.fields[static_cast<std::size_t>(text_index)]));
    const std::string label(trim(row.fields[static_cast<std::size_t>(label_index)]));
    const std::string where = table.file + ":" + std::to_string(row.line);
    if (text.empty()) return Error::invalid(where + ": the question text is empty");
    if (label.empty()) return Error::invalid(where + ": the label is empty");
    if (auto [it, fresh] = label_of_text.emplace(text, label); !fresh && it->second != label) {
      if (conflicting++ == 0) first_conflict_line = row.line;
    }
    auto it = by_label.find(label);
    if (it == by_label.end()) {
      Entry entry;
      entry.kind = EntryKind::kIntent;
      entry.id = "intent/" + label;
      entry.title = label;
      entry.label = label;
      entry.source = {table.file, row.line};
      it = by_label.emplace(label, parsed.entries.size()).first;
      parsed.entries.push_back(std::move(entry));
    }
    parsed.entries[it->second].questions.push_back({text, {table.file, row.line}});
  }
  if (parsed.entries.empty()) return Error::invalid(table.file + ":2: the file has no rows");
  if (conflicting > 0) {
    parsed.notes.push_back(table.file + ":" + std::to_string(first_conflict_line) + ": " +
                           std::to_string(conflicting) +
                           " question(s) appear again with a different label; all are kept");
  }
  return parsed;
}

}  // namespace supportd::kb
