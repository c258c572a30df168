// Per-token timestamps as CSV (`--record-tokens FILE`), for offline analysis, and the
// steady-state decode rate computed back from such a file (`--steady-decode-from FILE`).
// Columns: request,class,tenant,warmup,outcome,send_s,token,time_s — one row per token event
// (a streamed chunk with content), times in seconds after the run's start.
// Thread-safety: free functions.
#pragma once

#include <string>

#include "bench/report.h"
#include "bench/run_record.h"
#include "core/status.h"

namespace supportd::bench {

// Writes every request's token events. kIo names the file when it cannot be written.
Status write_token_log(const RunRecord& record, const WorkloadOptions& workload,
                       const std::string& path);

// steady_decode() over the measured ok requests of a token log. kNotFound names the file;
// kInvalidArgument names "FILE:LINE" and what is wrong there, or the file when it is empty or a
// directory.
Result<SteadyDecode> steady_decode_from_log(const std::string& path);

}  // namespace supportd::bench
