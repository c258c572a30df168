// Reading a file whole into memory, with errors that name the path.
// Thread-safety: a free function.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "core/status.h"

namespace supportd {

// The file's bytes. kIo naming the path when it cannot be opened or read.
inline Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::make(ErrorCode::kIo, path + ": cannot open file");
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return Error::make(ErrorCode::kIo, path + ": read failed");
  return content.str();
}

}  // namespace supportd
