// What one run observed, before any statistics: every request's timestamps and outcome, and
// the client's and the server's state sampled over time. report.h turns it into numbers.
// Times are seconds after the run's start (steady clock).
// Thread-safety: plain data.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/workload.h"

namespace supportd::bench {

enum class Outcome {
  kOk,        // HTTP 200 and a stream that ended with [DONE], without an error event
  kRejected,  // HTTP 429 or 503: the server refused to take the request on
  kError,     // anything else: other statuses, connection failures, timeouts, broken streams
};

struct RequestResult {
  std::int64_t index = 0;
  int priority = 1;  // sched::Priority as int: 0 high, 1 normal, 2 low
  int tenant = -1;   // index into the workload's tenants; -1: none
  bool warmup = false;
  bool repeated = false;
  int question_words = 0;
  int max_tokens = 0;

  double scheduled_s = 0;  // open loop: when it should have been sent; closed loop: = send_s
  double send_s = 0;       // when the client started it (before connecting)
  double header_s = -1;    // when the response header arrived; -1: never
  double end_s = 0;        // [DONE], the end of the response, or the failure
  Outcome outcome = Outcome::kError;
  std::string kind;           // rejected/error: "429:queue_full", "500", "timeout", ...
  std::string detail;         // errors: what the client saw (a socket error's message, ...)
  int status = 0;             // HTTP status; 0: no response
  double retry_after_s = -1;  // Retry-After of a rejection; -1: absent
  int prompt_tokens = -1;     // from usage; -1: not reported
  int completion_tokens = -1;
  int cached_tokens = -1;      // usage.prompt_tokens_details.cached_tokens
  double queued_ms = -1;       // supportd's timings.queued_ms: the wait for a slot; -1: none
  std::string served_by;       // the answer's "model" (a router's version); "": not named
  std::vector<float> token_s;  // per content event: seconds after send_s
};

// The server's queue, from /v1/stats (supportd) or /metrics (llama.cpp, vLLM); -1: unknown.
struct ServerSample {
  double time_s = 0;
  double waiting = -1;
  double running = -1;
  std::array<double, kClassCount> class_waiting{-1, -1, -1};
};

struct ClientSample {
  double time_s = 0;
  int outstanding = 0;  // requests sent and not finished
};

struct RunRecord {
  std::string model;            // the model id sent in every request
  std::string server_kind;      // "supportd", "llama.cpp", "vllm", or "" when not polled
  std::string started_at;       // wall clock at the start, ISO 8601 UTC
  double measure_start_s = -1;  // first measured request's send; -1: none was measured
  double end_s = 0;             // when the last request finished
  bool interrupted = false;     // cut short: requests in flight were abandoned
  std::string cut_reason;       // "signal" (SIGINT/SIGTERM) or "max_time"
  int peak_outstanding = 0;
  double client_cpu_s = 0;         // CPU time of the client's I/O thread over the run
  double client_peak_rss_mib = 0;  // the process's peak resident memory at the end
  double max_lag_ms = 0;           // open loop: worst delay between an arrival's time and its send
  std::vector<RequestResult> results;  // in completion order
  std::vector<ClientSample> client;
  std::vector<ServerSample> server;
};

}  // namespace supportd::bench
