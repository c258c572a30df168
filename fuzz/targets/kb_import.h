// What the knowledge-base importer targets share: a file parsed as `kb import` reads it, then
// merged as the import merges its sources (ids, labels, locales detected from the text).
#pragma once

#include <string>
#include <vector>

#include "fuzz_check.h"
#include "kb/import/sources.h"

namespace supportd::fuzz {

// Every parse error names the file (and line) it is about; what parsed is merged.
inline void merge_parsed(const Result<kb::ParsedSource>& parsed, const std::string& file) {
  require_explained(parsed);
  if (!parsed) {
    require(parsed.error().message.rfind(file, 0) == 0, "a parse error names its file");
    return;
  }
  std::vector<std::string> notes;
  const auto entries = kb::merge_sources({*parsed}, notes);
  require_explained(entries);
}

}  // namespace supportd::fuzz
