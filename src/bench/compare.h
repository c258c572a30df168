// `supportd bench --compare A.json B.json`: two reports side by side, with the ratio B/A for
// every headline number and, per priority class that either run had, the latency percentiles
// and throughputs.
// Thread-safety: pure functions (they read the two files).
#pragma once

#include <string>

#include "core/status.h"

namespace supportd::bench {

// The comparison table. Errors name the file: kNotFound when it cannot be read,
// kInvalidArgument when it is not JSON, not a `supportd bench --json` report of version
// kReportVersion, or has a compared value that is not a number or null.
Result<std::string> compare_reports(const std::string& a_path, const std::string& b_path);

}  // namespace supportd::bench
