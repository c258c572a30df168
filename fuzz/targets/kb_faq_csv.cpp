// Fuzz target: the knowledge base's CSV reader and FAQ CSV importer (kb/import/csv.h,
// sources.h): RFC 4180 records, then question/answer/id/... columns, then the merge.
#include "kb/import/csv.h"
#include "kb_import.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto table = kb::parse_csv(fuzz::text_of(data, size), "fuzz.csv");
  fuzz::require_explained(table);
  if (!table) return 0;
  for (const kb::CsvRow& row : table->rows)
    fuzz::require(row.fields.size() == table->header.size(), "every row has every column");
  fuzz::merge_parsed(kb::parse_faq_csv(*table), "fuzz.csv");
  return 0;
}
