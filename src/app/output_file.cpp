// The check every verb makes of a file it will write when its work is done (commands.h).
#include <filesystem>

#include "app/commands.h"

namespace supportd::app {

Status check_output_file(const std::string& flag, const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path file(path);
  const fs::path parent = file.has_parent_path() ? file.parent_path() : fs::path(".");
  if (path.empty()) return Error::invalid(flag + ": the file name is empty");
  if (fs::is_directory(file, ec)) return Error::invalid(flag + ": " + path + " is a directory");
  if (!fs::is_directory(parent, ec))
    return Error::invalid(flag + ": cannot write " + path + " (no directory " + parent.string() +
                          ")");
  return {};
}

}  // namespace supportd::app
