// FAQ as CSV: question, answer, and optionally id, title, tags, locale, label. Rows sharing an
// id are question variants of one entry; later rows may leave the other columns empty.
#include <algorithm>
#include <map>

#include "core/text.h"
#include "kb/import/sources.h"

namespace supportd::kb {
namespace {

const std::vector<std::string>& known_columns() {
  static const std::vector<std::string> columns = {"id",   "question", "answer", "title",
                                                   "tags", "locale",   "label"};
  return columns;
}

Error row_error(const CsvTable& table, const CsvRow& row, const std::string& message) {
  return Error::invalid(table.file + ":" + std::to_string(row.line) + ": " + message);
}

}  // namespace

Result<ParsedSource> parse_faq_csv(const CsvTable& table) {
  for (const std::string& name : table.header) {
    if (std::find(known_columns().begin(), known_columns().end(), name) == known_columns().end()) {
      return Error::invalid(table.file + ":1: unknown column '" + name +
                            "' (a FAQ has columns id, question, answer, title, tags, locale, "
                            "label; for labelled questions use --text-col and --label-col)");
    }
  }
  const int question_column = table.column("question");
  const int answer_column = table.column("answer");
  if (question_column < 0 || answer_column < 0) {
    return Error::invalid(table.file + ":1: a FAQ needs both a question and an answer column");
  }
  const auto cell = [&](const CsvRow& row, const char* name) {
    const int column = table.column(name);
    return column < 0 ? std::string()
                      : std::string(trim(row.fields[static_cast<std::size_t>(column)]));
  };

  ParsedSource parsed;
  parsed.file = table.file;
  parsed.format = SourceFormat::kFaqCsv;
  std::map<std::string, std::size_t> by_id;
  std::set<std::string> used_ids;
  for (const CsvRow& row : table.rows) {
    ++parsed.records;
    const std::string id = cell(row, "id");
    const std::string question = cell(row, "question");
    const std::string answer = cell(row, "answer");
    const std::string title = cell(row, "title");
    const std::string tags = cell(row, "tags");
    const std::string locale = cell(row, "locale");
    const std::string label = cell(row, "label");
    if (question.empty()) return row_error(table, row, "the question is empty");
    if (!id.empty()) {
      if (auto it = by_id.find(id); it != by_id.end()) {
        Entry& entry = parsed.entries[it->second];
        const auto conflict = [&](const std::string& value, const std::string& existing,
                                  const char* name) {
          return !value.empty() && value != existing
                     ? row_error(table, row,
                                 std::string("another ") + name + " for id '" + id +
                                     "' than at line " + std::to_string(entry.source.line))
                     : Error{};
        };
        for (const Error& error :
             {conflict(answer, entry.answer, "answer"), conflict(title, entry.title, "title"),
              conflict(locale, entry.locale, "locale"), conflict(label, entry.label, "label")}) {
          if (!error.message.empty()) return error;
        }
        entry.questions.push_back({question, {table.file, row.line}});
        continue;
      }
    }
    if (answer.empty()) return row_error(table, row, "the answer is empty");
    Entry entry;
    entry.kind = EntryKind::kFaq;
    entry.id =
        id.empty() ? unique_id("faq/" + slugify(title.empty() ? question : title), used_ids) : id;
    used_ids.insert(entry.id);
    entry.title = title.empty() ? question : title;
    entry.answer = answer;
    entry.label = label.empty() ? entry.id : label;
    entry.tags = split_tags(tags);
    entry.locale = locale;
    entry.source = {table.file, row.line};
    entry.questions.push_back({question, entry.source});
    if (!id.empty()) by_id[id] = parsed.entries.size();
    parsed.entries.push_back(std::move(entry));
  }
  if (parsed.entries.empty()) return Error::invalid(table.file + ":2: the FAQ has no rows");
  return parsed;
}

}  // namespace supportd::kb
