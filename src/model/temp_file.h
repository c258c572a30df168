// A hidden temporary file beside a destination, removed unless renamed onto it: outputs appear
// whole or not at all, and a failed run leaves an existing file as it was.
// Thread-safety: one owner.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "core/status.h"

namespace supportd::model {

class TempFile {
 public:
  // Creates `.supportd-<purpose>-XXXXXX` in `directory`; ok() is false when it cannot.
  TempFile(const std::string& directory, const std::string& purpose) {
    path_ = (std::filesystem::path(directory) / (".supportd-" + purpose + "-XXXXXX")).string();
    const int fd = mkstemp(path_.data());
    if (fd >= 0) {
      ::close(fd);
    } else {
      path_.clear();
    }
  }
  ~TempFile() {
    if (!path_.empty()) std::remove(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // Renames the file onto `destination` (replacing it); the file is no longer removed.
  Status commit(const std::string& destination) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::permissions(path_,  // mkstemp made it private; outputs are readable like any other file
                    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                        fs::perms::others_read,
                    ec);
    fs::rename(path_, destination, ec);
    if (ec) return Error::make(ErrorCode::kIo, "cannot write " + destination + ": " + ec.message());
    path_.clear();
    return {};
  }

 private:
  std::string path_;
};

}  // namespace supportd::model
