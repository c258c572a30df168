// The numbers of a run: per priority class (and all together) latency percentiles, throughput,
// goodput against the SLO, rejections and errors by kind; per tenant counts; the steady-state
// decode rate; and per-second series for charts. Warm-up requests are left out of everything
// but the series.
// Thread-safety: plain data and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/options.h"
#include "bench/run_record.h"
#include "obs/sliding_window.h"

namespace supportd::bench {

constexpr int kAllClasses = kClassCount;  // index of "all" in Report::classes
// "high", "normal", "low", "all".
const char* class_name(int index);

struct ClassReport {
  std::int64_t requests = 0;  // measured requests of the class = ok + rejected + errors
  std::int64_t ok = 0, rejected = 0, errors = 0;
  std::int64_t good = 0;                            // ok and within the SLO
  std::map<std::string, std::int64_t> rejections;   // by kind ("429:queue_full", ...)
  std::map<std::string, std::int64_t> error_kinds;  // by kind ("500", "timeout", ...)
  // Milliseconds, over ok requests: time to first token, gaps between token events, time per
  // output token after the first, send to [DONE].
  obs::Percentiles ttft_ms, itl_ms, tpot_ms, e2e_ms;
  // The server's own queue wait (arrival to a slot) of the ok requests that reported it
  // (supportd's timings.queued_ms; empty from other servers): not bounded by a stats window.
  obs::Percentiles queue_ms;
  obs::Percentiles reject_ms;          // send to the rejection's response header
  obs::Percentiles retry_after_s;      // Retry-After of rejections that carried one
  double request_throughput = 0;       // ok per second of the measured window
  double output_token_throughput = 0;  // output tokens of ok requests per second
  double goodput = 0;                  // good per second
  std::int64_t output_tokens = 0;      // usage.completion_tokens (else token events), ok only
  std::int64_t short_outputs = 0;      // ok with fewer tokens than max_tokens (ignore_eos unmet)
  std::int64_t repeated = 0;           // requests that repeated an earlier question
  double mean_prompt_tokens = -1;      // usage.prompt_tokens as the server counted; -1: none
  double mean_cached_tokens = -1;      // usage.prompt_tokens_details.cached_tokens; -1: none
  double mean_question_words = 0;      // what the client sent, for calibration
  std::vector<double> ttft_sorted, e2e_sorted;  // for CDF charts, milliseconds, ascending
};

// One model version's share of the run, by the answers' "model" (a model router names the
// version that served each); requests refused or failed before naming one are under "".
struct VersionReport {
  std::string name;
  std::int64_t requests = 0, ok = 0, rejected = 0, errors = 0;
  double ttft_p50_ms = 0, ttft_p99_ms = 0, e2e_p50_ms = 0, e2e_p99_ms = 0;  // over ok
};

// Per version, by name, of the measured requests; empty unless the answers name more than one
// model or one other than `requested` (the id every request asked for), as a router's do.
std::vector<VersionReport> version_reports(const RunRecord& record, const std::string& requested);

struct TenantReport {
  std::string name;
  std::int64_t requests = 0, ok = 0, rejected = 0, errors = 0, output_tokens = 0;
  double ttft_p50_ms = 0, ttft_p99_ms = 0;
};

// Aggregate decode rate while every stream was decoding: over measured ok streams with at
// least one token, the window runs from the latest first token to the earliest last token;
// tokens_per_s = token events inside the window (all streams) / its length. `overlapping`
// is false (and the rate 0) when some stream ended before another began.
struct SteadyDecode {
  int streams = 0;
  double window_start_s = 0, window_end_s = 0, window_s = 0;
  std::int64_t tokens = 0;
  double tokens_per_s = 0;
  bool overlapping = false;
};

// Each stream's token times, absolute (seconds after the run's start), ascending.
SteadyDecode steady_decode(const std::vector<std::vector<double>>& streams);

struct TimelineBucket {
  double start_s = 0;  // the second [start_s, start_s + 1)
  int sent = 0, completed = 0, rejected = 0, errors = 0;
  std::int64_t tokens = 0;  // token events received
};

struct Report {
  BenchOptions options;
  std::string model, server_kind, started_at;
  bool interrupted = false;
  std::string cut_reason;
  std::int64_t requests = 0, ok = 0, rejected = 0, errors = 0;
  std::int64_t warmup_requests = 0;
  double measure_start_s = 0, duration_s = 0;  // the measured window
  double request_throughput = 0, output_token_throughput = 0, input_token_throughput = 0;
  double goodput = 0, goodput_ratio = 0;
  int peak_outstanding = 0;
  double client_cpu_s = 0, client_peak_rss_mib = 0;
  double max_lag_ms = 0;
  std::map<std::string, std::string> error_examples;  // kind -> one detail
  std::array<ClassReport, kClassCount + 1> classes;   // high, normal, low, all
  std::vector<TenantReport> tenants;
  std::vector<VersionReport> versions;  // see version_reports
  SteadyDecode steady;
  std::vector<TimelineBucket> timeline;
  std::vector<ClientSample> client;
  std::vector<ServerSample> server;
};

// Computes every number above from what the run recorded.
Report build_report(const RunRecord& record, const BenchOptions& options);

}  // namespace supportd::bench
