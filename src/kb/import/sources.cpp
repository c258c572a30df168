// Sources (sources.h): parse_source picks the parser by extension (and columns), merge_sources
// joins files into entries with unique ids and detected locales; slugs and tags.
#include "kb/import/sources.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <filesystem>
#include <map>

#include "core/read_file.h"
#include "core/text.h"
#include "kb/analyze/language.h"
#include "kb/analyze/text_analyzer.h"

namespace supportd::kb {
namespace {

std::string lower_extension(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  for (char& c : extension)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return extension;
}

std::string detect_locale(const Entry& entry) {
  std::string text = entry.title + "\n" + entry.answer;
  for (const Question& question : entry.questions)
    text += "\n" + question.text;
  return detect_language(text).code;
}

}  // namespace

const char* source_format_name(SourceFormat format) {
  switch (format) {
    case SourceFormat::kMarkdown: return "markdown";
    case SourceFormat::kFaqCsv: return "faq-csv";
    case SourceFormat::kFaqJson: return "faq-json";
    case SourceFormat::kLabelledCsv: return "labelled-csv";
  }
  return "markdown";
}

Result<ParsedSource> parse_source(const std::string& path, const SourceOptions& options) {
  const std::string extension = lower_extension(path);
  if (extension == ".csv") {
    auto table = read_csv_file(path);
    if (!table) return table.error();
    if (!options.text_column.empty() || !options.label_column.empty()) {
      if (options.text_column.empty() || options.label_column.empty()) {
        return Error::invalid(path + ": labelled questions need both --text-col and --label-col");
      }
      return parse_labelled_csv(*table, options.text_column, options.label_column);
    }
    if (table->column("question") >= 0 || table->column("answer") >= 0) {
      return parse_faq_csv(*table);
    }
    return Error::invalid(path +
                          ":1: a CSV file is either a FAQ (columns question and answer) or "
                          "labelled questions (name their columns with --text-col and "
                          "--label-col); its columns are: " +
                          [&] {
                            std::string names;
                            for (const auto& name : table->header) {
                              names += (names.empty() ? "" : ", ") + name;
                            }
                            return names;
                          }());
  }
  if (extension == ".md" || extension == ".markdown" || extension == ".json" ||
      extension == ".jsonl") {
    auto text = read_text_file(path);
    if (!text) return text.error();
    if (extension == ".json" || extension == ".jsonl") {
      return parse_faq_json(*text, path, extension == ".jsonl");
    }
    return parse_markdown(*text, path);
  }
  return Error::invalid(path + ": unknown file type '" + extension +
                        "' (expected .md, .markdown, .csv, .json or .jsonl)");
}

Result<std::vector<Entry>> merge_sources(std::vector<ParsedSource> sources,
                                         std::vector<std::string>& notes) {
  std::vector<Entry> entries;
  std::map<std::string, std::size_t> by_id;
  std::map<std::string, std::vector<std::size_t>> labels;  // FAQ and article labels -> entries
  std::vector<Entry> intents;
  for (ParsedSource& source : sources) {
    for (const std::string& note : source.notes)
      notes.push_back(note);
    for (Entry& entry : source.entries) {
      if (entry.kind == EntryKind::kIntent) {
        intents.push_back(std::move(entry));
        continue;
      }
      if (auto it = by_id.find(entry.id); it != by_id.end()) {
        return Error::invalid(entry.source.to_string() + ": id '" + entry.id +
                              "' is already used at " + entries[it->second].source.to_string());
      }
      by_id[entry.id] = entries.size();
      labels[entry.label].push_back(entries.size());
      entries.push_back(std::move(entry));
    }
  }
  std::map<std::string, std::size_t> intent_by_label;
  for (Entry& intent : intents) {
    if (auto it = labels.find(intent.label); it != labels.end()) {
      if (it->second.size() > 1) {
        return Error::invalid(intent.source.to_string() + ": label '" + intent.label +
                              "' belongs to several entries (" +
                              entries[it->second[0]].source.to_string() + ", " +
                              entries[it->second[1]].source.to_string() +
                              "), so its labelled questions cannot be attached to one");
      }
      Entry& owner = entries[it->second[0]];
      owner.questions.insert(owner.questions.end(), intent.questions.begin(),
                             intent.questions.end());
      continue;
    }
    if (auto it = intent_by_label.find(intent.label); it != intent_by_label.end()) {
      Entry& owner = entries[it->second];
      owner.questions.insert(owner.questions.end(), intent.questions.begin(),
                             intent.questions.end());
      continue;
    }
    if (auto it = by_id.find(intent.id); it != by_id.end()) {
      return Error::invalid(intent.source.to_string() + ": intent id '" + intent.id +
                            "' is already used at " + entries[it->second].source.to_string());
    }
    intent_by_label[intent.label] = entries.size();
    by_id[intent.id] = entries.size();
    entries.push_back(std::move(intent));
  }
  if (entries.empty()) return Error::invalid("the files hold no entries");
  for (Entry& entry : entries) {
    if (entry.locale.empty()) entry.locale = detect_locale(entry);
  }
  return entries;
}

std::string slugify(std::string_view text) {
  const std::string folded = TextAnalyzer::fold(text);
  std::string slug;
  bool dash = false;
  for (int32_t i = 0, size = static_cast<int32_t>(folded.size()); i < size;) {
    const int32_t start = i;
    UChar32 c = 0;
    U8_NEXT(folded.data(), i, size, c);
    if (c >= 0 && (u_isalnum(c) || u_hasBinaryProperty(c, UCHAR_IDEOGRAPHIC))) {
      if (dash && !slug.empty()) slug += '-';
      dash = false;
      slug.append(folded, static_cast<std::size_t>(start), static_cast<std::size_t>(i - start));
    } else {
      dash = true;
    }
    if (slug.size() > 80) break;
  }
  return slug.empty() ? "entry" : slug;
}

std::string unique_id(const std::string& base, std::set<std::string>& used) {
  std::string id = base;
  for (int n = 2; used.count(id) != 0; ++n)
    id = base + "-" + std::to_string(n);
  used.insert(id);
  return id;
}

std::vector<std::string> split_tags(std::string_view text) {
  std::vector<std::string> tags;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find_first_of(";,", start);
    if (end == std::string_view::npos) end = text.size();
    std::string tag(trim(text.substr(start, end - start)));
    if (!tag.empty()) tags.push_back(std::move(tag));
    start = end + 1;
  }
  return tags;
}

}  // namespace supportd::kb
