// Fuzz target: the knowledge base's labelled-questions importer (kb/import/sources.h): a CSV
// whose "text" and "label" columns become intents with their example questions, then the merge.
#include "kb/import/csv.h"
#include "kb_import.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto table = kb::parse_csv(fuzz::text_of(data, size), "fuzz.csv");
  fuzz::require_explained(table);
  if (!table) return 0;
  fuzz::merge_parsed(kb::parse_labelled_csv(*table, "text", "label"), "fuzz.csv");
  return 0;
}
