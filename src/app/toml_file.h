// Reading the TOML config file, for its two readers (option_table.cpp, api_keys_file.cpp):
// parsing it with errors at file:line:column, and values into C++ settings. Includes toml++:
// only .cpp files include this.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "core/status.h"

namespace supportd::app {

// The parsed file; a syntax error (kInvalidArgument) reads "FILE:LINE:COLUMN: what".
inline Result<toml::table> parse_toml_file(const std::string& file) {
  try {
    return toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    return Error::invalid(fmt::format("{}:{}:{}: {}", file, e.source().begin.line,
                                      e.source().begin.column, e.description()));
  }
}

// Stores `node` in `out`; false, leaving `out` alone, when it has another type or a value `out`
// cannot hold (a port of 99999, a negative byte count): refused, never wrapped. T is bool, an
// integer, a floating-point type, std::string or std::vector<std::string> (an array, or one
// string).
template <typename T>
bool toml_value(const toml::node& node, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    if (auto v = node.value<bool>()) return out = *v, true;
  } else if constexpr (std::is_integral_v<T>) {
    if (auto v = node.value<std::int64_t>(); v && std::in_range<T>(*v))
      return out = static_cast<T>(*v), true;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (auto v = node.value<double>()) return out = static_cast<T>(*v), true;
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (auto single = node.value<std::string>()) return out = {*single}, true;  // one value
    const toml::array* array = node.as_array();
    if (array == nullptr) return false;
    std::vector<std::string> values;
    for (const toml::node& element : *array) {
      auto v = element.value<std::string>();
      if (!v) return false;
      values.push_back(*v);
    }
    return out = std::move(values), true;
  } else {
    if (auto v = node.value<std::string>()) return out = *v, true;
  }
  return false;
}

}  // namespace supportd::app
