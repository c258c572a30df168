// Text helpers shared by the modules that read configuration files, documents and headers.
#pragma once

#include <string_view>
#include <vector>

namespace supportd {

// `text` without its leading and trailing ASCII whitespace (space, \t, \n, \v, \f, \r).
constexpr std::string_view trim(std::string_view text) {
  constexpr std::string_view kWhitespace = " \t\n\v\f\r";
  const std::size_t first = text.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kWhitespace) - first + 1);
}

// `text` cut at each `separator`: n separators give n + 1 parts, empty ones included.
inline std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace supportd
