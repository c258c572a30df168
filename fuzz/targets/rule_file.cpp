// Fuzz target: the content-safety rule files (filter/rule_file.h) as a tenant's file is loaded:
// parsed, compiled into a Hyperscan database (filter/rule_set.h), then used to check a message
// and to filter an answer. Errors name the file and line; a compiled set never fails to run.
#include "filter/rule_file.h"
#include "filter/output_filter.h"
#include "filter/rule_set.h"

#include "fuzz_check.h"

using namespace supportd;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto file = filter::parse_rule_file(fuzz::text_of(data, size), "fuzz.rules");
  fuzz::require_explained(file);
  if (!file) {
    fuzz::require(file.error().message.rfind("fuzz.rules:", 0) == 0, "an error names its line");
    return 0;
  }
  auto rules = filter::RuleSet::compile(std::move(file).value());
  fuzz::require_explained(rules);
  if (!rules) return 0;
  const std::string sample = "Ｃａｌｌ me at 555-0100, my card is 4111 1111 1111 1111; idiot!";
  const filter::InputVerdict verdict = (*rules)->check_input(sample);
  fuzz::require(is_valid_utf8(verdict.text), "a checked message is valid UTF-8");
  filter::OutputFilter output(*rules);
  std::string answer;
  for (std::size_t at = 0; at < sample.size() && !output.stopped(); at += 7)
    answer += output.push(std::string_view(sample).substr(at, 7));
  if (!output.stopped()) answer += output.finish();
  fuzz::require(is_valid_utf8(answer), "a filtered answer is valid UTF-8");
  return 0;
}
