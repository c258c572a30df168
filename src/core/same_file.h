// Whether two paths name one file, so a command can refuse to write over its own input or to
// write two outputs into one file.
// Thread-safety: a free function.
#pragma once

#include <filesystem>
#include <string>

namespace supportd {

// The same inode when both exist (hard links and symlinks included), else the same path once
// resolved (an output that does not exist yet, named through "./" or "..").
inline bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return a == b;
  const fs::path cb = fs::weakly_canonical(b, ec);
  if (ec) return a == b;
  return ca == cb;
}

}  // namespace supportd
