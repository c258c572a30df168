// Runs one benchmark: an asynchronous HTTP client (Beast on one Asio thread, the caller's)
// that sends streaming completions in a closed or open loop, timestamps every event, keeps
// connections alive for reuse, polls the server's queue once a second, draws the progress
// line and stops by itself (or on SIGINT/SIGTERM, keeping what it has).
// Thread-safety: run_benchmark blocks the calling thread; runs may not overlap in a process
// that relies on SIGINT (each run installs its own handler for the duration).
#pragma once

#include "bench/options.h"
#include "bench/run_record.h"
#include "core/status.h"

namespace supportd::bench {

// REQUIRES: validate(options) succeeded.
// Raises the soft RLIMIT_NOFILE to the hard limit first. Errors before any request is sent:
// kInvalidArgument/kUnsupported for the URL, kUnavailable when the host does not resolve or
// (without options.model) GET /v1/models fails, naming the URL and why; kInvalidArgument when
// the file-descriptor limit cannot hold options.concurrency connections. Failures of
// individual requests are outcomes in the record, never errors of the run.
Result<RunRecord> run_benchmark(const BenchOptions& options);

}  // namespace supportd::bench
