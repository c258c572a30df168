// For targets whose code reads a file by its path: the input written to a file of this process
// (in $TMPDIR, else /tmp), rewritten for every input.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace supportd::fuzz {

// Writes the input to the process's file named with `suffix` (".toml") and returns its path.
inline const std::string& write_input(const std::uint8_t* data, std::size_t size,
                                      const char* suffix) {
  static const std::string path = [suffix] {
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp ? tmp : "/tmp") + "/supportd-fuzz-" + std::to_string(::getpid()) +
           suffix;
  }();
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace supportd::fuzz
