// The report as one JSON object, for scripts and for `--compare`. Stable names (the schema is
// in docs/architecture.md, "Load tester"): top-level requests, ok, errors, rejected,
// duration_s, request_throughput, output_token_throughput, goodput; classes.{high,normal,low,
// all}.{ttft_ms,itl_ms,tpot_ms,e2e_ms}.{p50,p90,p95,p99,max,mean,count}; config; tenants;
// steady_decode; timeline. Percentiles of an empty set are null.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "bench/report.h"

namespace supportd::bench {

constexpr int kReportVersion = 1;

// Indented JSON text (arrays of numbers stay on one line), ending with a newline.
std::string report_json(const Report& report);

}  // namespace supportd::bench
