// What the fuzz targets share: the input as text, and a check that stops the run with a message
// when a property of the code under test is broken (libFuzzer then saves the input).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "core/status.h"
#include "core/utf8.h"

namespace supportd::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Aborts, naming the broken property, unless `holds`.
inline void require(bool holds, const char* property) {
  if (holds) return;
  std::fprintf(stderr, "fuzz: property broken: %s\n", property);
  std::abort();
}

// A refusal must say what is wrong: every error the parsers return carries a message.
template <typename T>
void require_explained(const Result<T>& result) {
  if (!result) require(!result.error().message.empty(), "an error has a message");
}

}  // namespace supportd::fuzz
