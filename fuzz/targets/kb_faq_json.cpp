// Fuzz target: the knowledge base's FAQ JSON importer (kb/import/sources.h), as a .json file (an
// array or {"entries": [...]}) and as .jsonl (an object per line), then the merge.
#include "kb_import.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  fuzz::merge_parsed(kb::parse_faq_json(text, "fuzz.json", false), "fuzz.json");
  fuzz::merge_parsed(kb::parse_faq_json(text, "fuzz.jsonl", true), "fuzz.jsonl");
  return 0;
}
