// The report as text for a terminal: a header with totals and throughput, then one column per
// priority class that had requests (and "all") with latency percentiles, then rejections and
// errors by kind.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "bench/report.h"

namespace supportd::bench {

std::string format_summary(const Report& report);

// One line: "steady decode: 16 streams, 12345 tokens in 4.321 s = 2857.1 tokens/s (window
// 1.234-5.555 s)", or why there is no steady window.
std::string format_steady_decode(const SteadyDecode& steady);

}  // namespace supportd::bench
