// This process's resource use, read from /proc (Linux).
#pragma once

#include <cstdint>

namespace supportd::obs {

struct ProcessUsage {
  std::int64_t resident_bytes = 0;
  double cpu_seconds = 0;  // user + system
  int open_fds = 0;
  int threads = 0;
};

ProcessUsage process_usage();

}  // namespace supportd::obs
