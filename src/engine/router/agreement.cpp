// A shadow's answer against production's (see agreement.h).
#include "engine/router/agreement.h"

#include <algorithm>
#include <map>
#include <string>

namespace supportd::engine::router {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Each word of `text` with how many times it occurs; `total` gets the number of words.
std::map<std::string_view, int> count_words(std::string_view text, int& total) {
  std::map<std::string_view, int> words;
  total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i]))
      ++i;
    const std::size_t start = i;
    while (i < text.size() && !is_space(text[i]))
      ++i;
    if (i > start) {
      ++words[text.substr(start, i - start)];
      ++total;
    }
  }
  return words;
}

}  // namespace

Agreement compare_answers(std::string_view production, std::string_view shadow) {
  Agreement agreement;
  agreement.exact = production == shadow;
  int production_total = 0;
  int shadow_total = 0;
  const auto production_words = count_words(production, production_total);
  const auto shadow_words = count_words(shadow, shadow_total);
  if (production_total + shadow_total == 0) {
    agreement.overlap = 1;
    return agreement;
  }
  int common = 0;
  for (const auto& [word, count] : production_words) {
    if (const auto found = shadow_words.find(word); found != shadow_words.end())
      common += std::min(count, found->second);
  }
  agreement.overlap = 2.0 * common / (production_total + shadow_total);
  return agreement;
}

}  // namespace supportd::engine::router
