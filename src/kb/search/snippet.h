// Snippets for citations: the short plain text that shows why an entry matched.
// Thread-safe (pure functions).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kb/analyze/text_analyzer.h"
#include "kb/entry.h"

namespace supportd::kb {

inline constexpr std::size_t kSnippetBytes = 240;

// A question document is its own snippet; for a title-and-answer document (or none), the
// answer's passage sharing the most terms with the query, stripped of Markdown markup and cut
// to about kSnippetBytes on a character boundary.
std::string make_snippet(const Entry& entry, const Document* best_document,
                         const std::vector<std::string>& query_terms, const TextAnalyzer& analyzer);

// `text` cut to at most `bytes` bytes at a character (preferably word) boundary, with "…".
std::string shorten(std::string_view text, std::size_t bytes);

}  // namespace supportd::kb
