// Parsing the files a knowledge base is imported from, and merging them into entries.
//   Markdown (.md, .markdown): an entry per heading (ATX "#" or setext underlines).
//   FAQ as CSV: columns question, answer and optionally id, title, tags, locale, label; rows
//     that share an id are question variants of one entry.
//   FAQ as JSON (.json: an array of objects, or {"entries": [...]}; .jsonl: one per line):
//     question or questions, answer, and optionally id, title, tags, locale, label.
//   Labelled questions as CSV (text and label columns named by the caller): every label
//     becomes an intent whose examples are its questions.
// Every problem is an error naming the file and line; nothing is dropped without a note.
// Thread-safe (pure functions).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "kb/entry.h"
#include "kb/import/csv.h"

namespace supportd::kb {

enum class SourceFormat { kMarkdown, kFaqCsv, kFaqJson, kLabelledCsv };

const char* source_format_name(SourceFormat format);

struct SourceOptions {
  std::string text_column;  // with label_column: CSV files are labelled questions
  std::string label_column;
};

// What one file contributed.
struct ParsedSource {
  std::string file;
  SourceFormat format = SourceFormat::kMarkdown;
  std::vector<Entry> entries;
  int records = 0;                 // headings, FAQ rows/objects or labelled rows read
  std::vector<std::string> notes;  // "file:line: ..." for anything worth knowing (not errors)
};

// Reads `path` and parses it according to its extension (and, for CSV, its columns and
// `options`). Unknown extensions, unknown columns and malformed content fail with file:line.
Result<ParsedSource> parse_source(const std::string& path, const SourceOptions& options);

Result<ParsedSource> parse_markdown(std::string_view text, const std::string& file);
Result<ParsedSource> parse_faq_csv(const CsvTable& table);
Result<ParsedSource> parse_faq_json(std::string_view text, const std::string& file, bool lines);
Result<ParsedSource> parse_labelled_csv(const CsvTable& table, const std::string& text_column,
                                        const std::string& label_column);

// Merges parsed files into the knowledge base's entries: ids must be unique; labelled questions
// whose label is a FAQ's or article's label (given, else its id) become that entry's questions;
// intents of the same label from several files merge; a missing locale is detected from the text.
Result<std::vector<Entry>> merge_sources(std::vector<ParsedSource> sources,
                                         std::vector<std::string>& notes);

// A readable, stable identifier fragment: case-folded letters and digits joined by '-'.
std::string slugify(std::string_view text);

// `base`, or `base-2`, `base-3`... whichever is not in `used` yet; adds it to `used`.
std::string unique_id(const std::string& base, std::set<std::string>& used);

// Tags from "a; b, c" (split on ';' and ',', trimmed, empty pieces dropped).
std::vector<std::string> split_tags(std::string_view text);

}  // namespace supportd::kb
