// Text helpers shared by the modules that read configuration files, documents and headers.
#pragma once

#include <string_view>

namespace supportd {

// `text` without its leading and trailing ASCII whitespace (space, \t, \n, \v, \f, \r).
constexpr std::string_view trim(std::string_view text) {
  constexpr std::string_view kWhitespace = " \t\n\v\f\r";
  const std::size_t first = text.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kWhitespace) - first + 1);
}

}  // namespace supportd
