// Reading this process's resident memory, CPU time, threads and open descriptors from
// /proc/self.
#include "obs/process.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace supportd::obs {

ProcessUsage process_usage() {
  ProcessUsage usage;
  {
    std::ifstream statm("/proc/self/statm");
    std::int64_t size = 0, resident = 0;
    if (statm >> size >> resident) usage.resident_bytes = resident * sysconf(_SC_PAGESIZE);
  }
  {
    std::ifstream stat("/proc/self/stat");
    std::string line;
    std::getline(stat, line);
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const std::size_t close = line.rfind(')');
    if (close != std::string::npos) {
      std::istringstream fields(line.substr(close + 2));
      std::string field;
      long ticks_user = 0, ticks_system = 0, threads = 0;
      for (int i = 3; fields >> field; ++i) {
        if (i == 14) ticks_user = std::stol(field);
        if (i == 15) ticks_system = std::stol(field);
        if (i == 20) {
          threads = std::stol(field);
          break;
        }
      }
      usage.cpu_seconds = static_cast<double>(ticks_user + ticks_system) /
                          static_cast<double>(sysconf(_SC_CLK_TCK));
      usage.threads = static_cast<int>(threads);
    }
  }
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++usage.open_fds;
  }
  return usage;
}

}  // namespace supportd::obs
