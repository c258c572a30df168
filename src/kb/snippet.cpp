#include "kb/snippet.h"

#include <set>

#include "kb/sources.h"

namespace supportd::kb {
namespace {

// A line without its Markdown block markers ("# ", "- ", "> ", "1. ") and inline emphasis.
std::string plain_line(std::string_view line) {
  std::string text = trim(line);
  std::string_view view = text;
  while (!view.empty() &&
         (view[0] == '#' || view[0] == '>' || view[0] == '-' || view[0] == '*' || view[0] == '+')) {
    view.remove_prefix(1);
    while (!view.empty() && view[0] == ' ')
      view.remove_prefix(1);
  }
  std::string out;
  for (char c : view) {
    if (c != '*' && c != '`' && c != '_') out += c;
  }
  return trim(out);
}

// Sentences and lines of an answer, as plain text.
std::vector<std::string> passages(std::string_view answer) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < answer.size()) {
    std::size_t end = answer.find('\n', start);
    if (end == std::string_view::npos) end = answer.size();
    const std::string line = plain_line(answer.substr(start, end - start));
    start = end + 1;
    if (line.empty() || line.starts_with("```") || line.starts_with("~~~")) continue;
    // Split long lines into sentences ending in ". ", "? ", "! " or the CJK full stop.
    std::size_t from = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const bool latin_end = (line[i] == '.' || line[i] == '?' || line[i] == '!') &&
                             i + 1 < line.size() && line[i + 1] == ' ';
      const bool cjk_end = line.compare(i, 3, "\xE3\x80\x82") == 0;  // 。
      if (latin_end || cjk_end) {
        const std::size_t stop = i + (cjk_end ? 3 : 1);
        out.push_back(trim(std::string_view(line).substr(from, stop - from)));
        from = stop;
      }
    }
    if (from < line.size()) out.push_back(trim(std::string_view(line).substr(from)));
  }
  std::erase_if(out, [](const std::string& s) { return s.empty(); });
  return out;
}

bool continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

std::string shorten(std::string_view text, std::size_t bytes) {
  if (text.size() <= bytes) return std::string(text);
  std::size_t cut = bytes;
  while (cut > 0 && continuation_byte(text[cut]))
    --cut;
  // Prefer a space in the last fifth, so words stay whole.
  const std::size_t space = text.rfind(' ', cut);
  if (space != std::string_view::npos && space > bytes * 4 / 5) cut = space;
  return trim(text.substr(0, cut)) + "\xE2\x80\xA6";
}

std::string make_snippet(const Entry& entry, const Document* best_document,
                         const std::vector<std::string>& query_terms,
                         const TextAnalyzer& analyzer) {
  if (best_document != nullptr && best_document->kind == DocumentKind::kQuestion) {
    return shorten(best_document->text, kSnippetBytes);
  }
  if (entry.answer.empty()) {
    return shorten(entry.questions.empty() ? entry.title : entry.questions.front().text,
                   kSnippetBytes);
  }
  const std::vector<std::string> list = passages(entry.answer);
  if (list.empty()) return shorten(entry.title, kSnippetBytes);
  const std::set<std::string> wanted(query_terms.begin(), query_terms.end());
  std::size_t best = 0;
  std::size_t best_overlap = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::set<std::string> found;
    for (const std::string& term : analyzer.terms(list[i])) {
      if (wanted.count(term) != 0) found.insert(term);
    }
    if (found.size() > best_overlap) {
      best_overlap = found.size();
      best = i;
    }
  }
  std::string snippet = list[best];
  for (std::size_t i = best + 1; i < list.size() && snippet.size() < kSnippetBytes / 2; ++i) {
    snippet += " " + list[i];
  }
  return shorten(snippet, kSnippetBytes);
}

}  // namespace supportd::kb
