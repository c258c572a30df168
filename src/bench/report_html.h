// The report as one self-contained HTML page (no scripts, no external files): the text
// summary, then inline SVG charts — TTFT and end-to-end latency CDFs per priority class,
// requests and tokens per second over time, and queue depth over time (the server's, when it
// was polled, and the client's requests in flight).
// Thread-safety: pure function.
#pragma once

#include <string>

#include "bench/report.h"

namespace supportd::bench {

std::string report_html(const Report& report);

}  // namespace supportd::bench
