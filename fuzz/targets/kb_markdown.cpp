// Fuzz target: the knowledge base's Markdown importer (kb/import/sources.h): an entry per
// heading, then the merge `kb import` runs.
#include "kb_import.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::merge_parsed(kb::parse_markdown(fuzz::text_of(data, size), "fuzz.md"), "fuzz.md");
  return 0;
}
