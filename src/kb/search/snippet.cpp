// Snippets (snippet.h): the matching question, or the answer's sentence sharing the most terms
// with the question, as plain text cut on a character boundary.
#include "kb/search/snippet.h"

#include <set>

#include "core/text.h"

namespace supportd::kb {
namespace {

// A line without its Markdown block markers ("# ", "- ", "> ", "1. ") and inline emphasis.
std::string plain_line(std::string_view line) {
  std::string text(trim(line));
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
  return std::string(trim(out));
}

// Splits plain text into sentences ending in ". ", "? ", "! " or the CJK full stop.
void add_sentences(const std::string& text, std::vector<std::string>& out) {
  std::size_t from = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool latin_end = (text[i] == '.' || text[i] == '?' || text[i] == '!') &&
                           i + 1 < text.size() && text[i + 1] == ' ';
    const bool cjk_end = text.compare(i, 3, "\xE3\x80\x82") == 0;  // 。
    if (latin_end || cjk_end) {
      const std::size_t stop = i + (cjk_end ? 3 : 1);
      out.emplace_back(trim(std::string_view(text).substr(from, stop - from)));
      from = stop;
    }
  }
  if (from < text.size()) out.emplace_back(trim(std::string_view(text).substr(from)));
}

// The sentences of an answer as plain text: lines of a paragraph are joined first; a blank
// line, a list item or a heading starts a new paragraph; code blocks are left out.
std::vector<std::string> passages(std::string_view answer) {
  std::vector<std::string> out;
  std::string paragraph;
  bool in_code = false;
  const auto flush = [&] {
    add_sentences(paragraph, out);
    paragraph.clear();
  };
  std::size_t start = 0;
  while (start <= answer.size()) {
    std::size_t end = answer.find('\n', start);
    if (end == std::string_view::npos) end = answer.size();
    const std::string raw(trim(answer.substr(start, end - start)));
    start = end + 1;
    if (raw.starts_with("```") || raw.starts_with("~~~")) {
      flush();
      in_code = !in_code;
      continue;
    }
    if (in_code) continue;
    if (raw.empty()) {
      flush();
      continue;
    }
    const bool block_start = raw[0] == '#' || raw[0] == '-' || raw[0] == '*' || raw[0] == '+' ||
                             raw[0] == '>' ||
                             (raw[0] >= '0' && raw[0] <= '9' && raw.find(". ") < 4);
    if (block_start) flush();
    const std::string line = plain_line(raw);
    if (line.empty()) continue;
    if (!paragraph.empty()) paragraph += ' ';
    paragraph += line;
  }
  flush();
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
  return std::string(trim(text.substr(0, cut))) + "\xE2\x80\xA6";
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
