// What a run needs from the process and the system around it: enough file descriptors for its
// connections, the wall-clock time for the report, and what the client itself cost.
// Thread-safety: raise_file_limit changes process-wide state; call it from one thread.
#pragma once

#include <string>

namespace supportd::bench {

// Raises the soft RLIMIT_NOFILE to the hard limit; returns the soft limit now in force.
int raise_file_limit();

// CPU seconds (user + system) the calling thread has used so far.
double thread_cpu_seconds();

// The process's peak resident memory so far, in MiB.
double peak_rss_mib();

// The current wall-clock time, ISO 8601 UTC ("2025-01-31T12:00:00Z").
std::string utc_timestamp();

}  // namespace supportd::bench
