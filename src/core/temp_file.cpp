// TempFile and write_file_atomically(): a mkstemp file beside the destination, renamed onto
// it when complete, removed otherwise.
#include "core/temp_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace supportd {

namespace fs = std::filesystem;

TempFile::TempFile(const std::string& directory, const std::string& purpose) {
  path_ = (fs::path(directory) / (".supportd-" + purpose + "-XXXXXX")).string();
  const int fd = mkstemp(path_.data());
  if (fd >= 0) {
    ::close(fd);
  } else {
    path_.clear();
  }
}

TempFile::~TempFile() {
  if (!path_.empty()) std::remove(path_.c_str());
}

Status TempFile::commit(const std::string& destination) {
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

Status write_file_atomically(const std::string& path, const std::string& content) {
  std::error_code ec;
  fs::path target(path);
  if (fs::is_symlink(fs::symlink_status(target, ec))) {
    const fs::path resolved = fs::canonical(target, ec);  // replace what the link names
    if (!ec) target = resolved;
  }
  const fs::file_status status = fs::status(target, ec);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    // A device or a pipe (/dev/stdout, say): there is no file to replace, so write into it.
    std::ofstream out(target, std::ios::binary);
    if (out) out << content;
    if (!out || !out.flush()) return Error::make(ErrorCode::kIo, "cannot write " + path);
    return {};
  }
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  TempFile temporary(parent.string(), target.filename().string());
  if (!temporary.ok()) {
    return Error::make(ErrorCode::kIo, "cannot write " + path + ": cannot create a file in " +
                                           parent.string() + " (" + std::strerror(errno) + ")");
  }
  {
    std::ofstream out(temporary.path(), std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) return Error::make(ErrorCode::kIo, "cannot write " + path);
  }
  return temporary.commit(target.string());
}

}  // namespace supportd
