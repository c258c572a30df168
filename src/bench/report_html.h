// The report as one self-contained HTML page (no scripts, no external files): the text
// summary, then inline SVG charts — TTFT and end-to-end latency CDFs per priority class,
// requests and tokens per second over time, and queue depth over time (the server's, when it
// was polled, and the client's requests in flight).
// Thread-safety: pure function.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bench/report.h"

namespace supportd::bench {

std::string report_html(const Report& report);

// The step function of the fraction of `sorted` (ascending) at or below x, as chart points
// (x, fraction): from (first, 0) to (last, 1), with at most `max_steps` rises (every k-th
// value when there are more).
std::vector<std::pair<double, double>> empirical_cdf(const std::vector<double>& sorted,
                                                     std::size_t max_steps);

}  // namespace supportd::bench
