// Files built into the binary (web pages, the demo knowledge base): see cmake/embed.cmake.
#pragma once

#include <span>
#include <string_view>

namespace supportd {

struct EmbeddedFile {
  std::string_view path;  // relative to the embedded directory, '/'-separated
  std::span<const unsigned char> data;

  std::string_view text() const {
    return {reinterpret_cast<const char*>(data.data()), data.size()};
  }
};

// The file at `path` in `files`, or null.
inline const EmbeddedFile* find_embedded(std::span<const EmbeddedFile> files,
                                         std::string_view path) {
  for (const auto& f : files) {
    if (f.path == path) return &f;
  }
  return nullptr;
}

}  // namespace supportd

// Declares the accessor a supportd_embed_directory(... NAME ...) library defines.
#define SUPPORTD_EMBEDDED_DIRECTORY(name) \
  namespace supportd {                    \
  std::span<const EmbeddedFile> name();   \
  }
