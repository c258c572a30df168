// Files that appear whole or not at all: a hidden temporary file beside the destination,
// renamed onto it once complete, and removed if it never is. A failed or interrupted run
// leaves an existing file as it was and no partial one behind.
// Thread-safety: a TempFile has one owner; write_file_atomically may be called from any thread
// (for different destinations).
#pragma once

#include <string>

#include "core/status.h"

namespace supportd {

class TempFile {
 public:
  // Creates `.supportd-<purpose>-XXXXXX` in `directory`; ok() is false when it cannot.
  TempFile(const std::string& directory, const std::string& purpose);
  ~TempFile();  // removes the file unless it was committed
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // Renames the file onto `destination` (replacing it), readable like any other file; the
  // file is no longer removed. Errors name the destination.
  Status commit(const std::string& destination);

 private:
  std::string path_;
};

// Writes `content` to `path` through a TempFile in the same directory. Errors name `path`.
Status write_file_atomically(const std::string& path, const std::string& content);

}  // namespace supportd
