// The slow-request log line: one line per request over --trace-slow-ms saying where its time
// went, stage by stage, so that "which stage ate the 3 s" is answered by the log alone.
//   slow request POST /v1/sessions/{session}/messages: 3204 ms (over 1000 ms), status 200,
//   trace 4bf92f35..., stages: turn 3203 ms [wait 0.1 ms, validate 0.2 ms, ...,
//   generate 3150 ms [chat m 3149 ms [queue 2900 ms, prefill 120 ms, decode 129 ms]]]
// Pure functions: safe from any thread.
#pragma once

#include <string>

#include "obs/trace/trace_ring.h"

namespace supportd::obs::trace {

// The spans under the root, nested in brackets, each with its duration, in start order.
// At most `max_chars` characters (then it ends with "...").
std::string stage_breakdown(const KeptTrace& trace, std::size_t max_chars = 4000);

// The whole line for a request kept as slow (`threshold_ms` is the slow threshold).
std::string slow_request_line(const KeptTrace& trace, double threshold_ms);

}  // namespace supportd::obs::trace
