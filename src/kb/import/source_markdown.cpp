// Markdown: an entry per heading. A heading whose section has no text of its own (only
// subsections) becomes part of its subsections' titles ("Returns › Refunds").
#include <algorithm>
#include <filesystem>
#include <set>

#include "core/text.h"
#include "core/utf8.h"
#include "kb/import/sources.h"

namespace supportd::kb {
namespace {

struct Section {
  int level = 0;  // 0: text before the first heading
  std::string title;
  int line = 0;
  std::vector<std::string> body;
};

int leading_spaces(std::string_view line) {
  int n = 0;
  while (n < static_cast<int>(line.size()) && line[static_cast<std::size_t>(n)] == ' ')
    ++n;
  return n;
}

// The fence marker ("```" or "~~~", possibly longer) that opens a code block, or "".
std::string fence_marker(std::string_view line) {
  const int indent = leading_spaces(line);
  if (indent > 3) return {};
  line.remove_prefix(static_cast<std::size_t>(indent));
  if (line.empty() || (line[0] != '`' && line[0] != '~')) return {};
  std::size_t n = 0;
  while (n < line.size() && line[n] == line[0])
    ++n;
  return n >= 3 ? std::string(line.substr(0, n)) : std::string();
}

// An ATX heading ("## Title ##"): its level and title, or level 0.
std::pair<int, std::string> atx_heading(std::string_view line) {
  const int indent = leading_spaces(line);
  if (indent > 3) return {0, {}};
  line.remove_prefix(static_cast<std::size_t>(indent));
  int level = 0;
  while (level < static_cast<int>(line.size()) && line[static_cast<std::size_t>(level)] == '#') {
    ++level;
  }
  if (level == 0 || level > 6) return {0, {}};
  line.remove_prefix(static_cast<std::size_t>(level));
  if (!line.empty() && line[0] != ' ' && line[0] != '\t') return {0, {}};
  std::string title(trim(line));
  // An optional closing sequence of '#' preceded by a space.
  std::size_t end = title.size();
  while (end > 0 && title[end - 1] == '#')
    --end;
  if (end == 0) {
    title.clear();
  } else if (end < title.size() && (title[end - 1] == ' ' || title[end - 1] == '\t')) {
    title = std::string(trim(std::string_view(title).substr(0, end)));
  }
  return {level, title};
}

// A setext underline ("====" level 1, "----" level 2), or 0.
int setext_level(std::string_view line) {
  if (leading_spaces(line) > 3) return 0;
  const std::string text(trim(line));
  if (text.size() < 2 || (text[0] != '=' && text[0] != '-')) return 0;
  for (char c : text) {
    if (c != text[0]) return 0;
  }
  return text[0] == '=' ? 1 : 2;
}

bool blank(std::string_view line) {
  return trim(line).empty();
}

std::string join_body(const std::vector<std::string>& lines) {
  std::size_t first = 0, last = lines.size();
  while (first < last && blank(lines[first]))
    ++first;
  while (last > first && blank(lines[last - 1]))
    --last;
  std::string text;
  for (std::size_t i = first; i < last; ++i) {
    if (i > first) text += '\n';
    text += lines[i];
  }
  return text;
}

}  // namespace

Result<ParsedSource> parse_markdown(std::string_view text, const std::string& file) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (const std::size_t bad = first_invalid_utf8(text); bad != text.size()) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + bad, '\n'));
    return Error::invalid(file + ":" + std::to_string(line) + ": invalid UTF-8");
  }
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + nul, '\n'));
    return Error::invalid(file + ":" + std::to_string(line) +
                          ": a NUL byte (the file is binary or damaged)");
  }
  std::vector<Section> sections(1);  // sections[0]: text before the first heading
  std::string fence;
  int fence_line = 0;
  int paragraph_lines = 0;  // text lines since the last blank line, heading or code block
  int line_number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++line_number;
    start = end + 1;
    Section& current = sections.back();
    if (!fence.empty()) {
      const std::string marker = fence_marker(line);
      if (!marker.empty() && marker[0] == fence[0] && marker.size() >= fence.size() &&
          trim(line).size() == marker.size()) {
        fence.clear();
      }
      current.body.push_back(line);
      continue;
    }
    if (std::string marker = fence_marker(line); !marker.empty()) {
      fence = marker;
      fence_line = line_number;
      paragraph_lines = 0;
      current.body.push_back(line);
      continue;
    }
    if (auto [level, title] = atx_heading(line); level > 0) {
      if (title.empty()) {
        return Error::invalid(file + ":" + std::to_string(line_number) + ": heading has no title");
      }
      sections.push_back({level, title, line_number, {}});
      paragraph_lines = 0;
      continue;
    }
    // A setext underline turns the single-line paragraph above it into a heading.
    if (const int level = setext_level(line); level > 0 && paragraph_lines == 1) {
      std::string title(trim(current.body.back()));
      current.body.pop_back();
      sections.push_back({level, title, line_number - 1, {}});
      paragraph_lines = 0;
      continue;
    }
    paragraph_lines = blank(line) ? 0 : paragraph_lines + 1;
    current.body.push_back(line);
  }
  if (!fence.empty()) {
    return Error::invalid(file + ":" + std::to_string(fence_line) +
                          ": the code block opened with " + fence + " here is never closed");
  }

  ParsedSource parsed;
  parsed.file = file;
  parsed.format = SourceFormat::kMarkdown;
  const std::string stem = std::filesystem::path(file).stem().string();
  const std::string prefix = slugify(stem);
  std::set<std::string> used_ids;
  // Titles of enclosing headings that have no text of their own, by level.
  std::vector<std::pair<int, std::string>> empty_parents;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    Section& section = sections[i];
    const std::string body = join_body(section.body);
    if (section.level > 0) {
      ++parsed.records;
      while (!empty_parents.empty() && empty_parents.back().first >= section.level) {
        empty_parents.pop_back();
      }
    }
    if (body.empty()) {
      if (section.level == 0) continue;  // no text before the first heading
      const bool has_subsections = i + 1 < sections.size() && sections[i + 1].level > section.level;
      if (has_subsections) {
        empty_parents.emplace_back(section.level, section.title);
      } else {
        parsed.notes.push_back(file + ":" + std::to_string(section.line) + ": heading '" +
                               section.title + "' has no text, so it makes no entry");
      }
      continue;
    }
    Entry entry;
    entry.kind = EntryKind::kArticle;
    if (section.level == 0) {
      entry.title = stem;
      entry.source = {file, 1};
      parsed.notes.push_back(file + ":1: text before the first heading became the entry '" + stem +
                             "'");
    } else {
      for (const auto& [level, title] : empty_parents)
        entry.title += title + " \xE2\x80\xBA ";
      entry.title += section.title;
      entry.source = {file, section.line};
    }
    const std::string id =
        unique_id(prefix + "/" + slugify(section.level == 0 ? stem : section.title), used_ids);
    entry.id = id;
    entry.label = id;
    entry.answer = body;
    parsed.entries.push_back(std::move(entry));
  }
  if (parsed.entries.empty()) {
    return Error::invalid(file +
                          ":1: no headings with text (an entry is a heading and the text "
                          "under it)");
  }
  return parsed;
}

}  // namespace supportd::kb
