// Everything one `supportd bench` run is told: the target, the load (closed or open loop),
// its bounds, the workload and the SLO. Filled from the command line (app/bench_command.cpp)
// or directly by tests; validate() checks it as a whole.
// Thread-safety: plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/arrivals.h"
#include "bench/distribution.h"
#include "bench/workload.h"
#include "core/status.h"

namespace supportd::bench {

enum class LoadMode {
  kClosed,   // `concurrency` users, each sending its next request when the last one ends
  kPoisson,  // open loop: arrivals at `rate` per second, whatever the server's speed
  kTrace,    // open loop: arrivals at the times of a trace file
};
const char* load_mode_name(LoadMode mode);

struct BenchOptions {
  // Target.
  std::string url = "http://127.0.0.1:8080";  // base URL; a trailing /v1 is accepted
  bool chat = true;                           // /v1/chat/completions, else /v1/completions
  std::string model;                          // empty: the first id of GET /v1/models
  std::string api_key;                        // when no tenants are given

  // Load.
  LoadMode mode = LoadMode::kClosed;
  int concurrency = 1;
  Distribution think_time = Distribution::fixed(0);  // seconds between a user's requests
  double ramp_up_s = 0;                              // users start evenly over this time
  double rate = 0;                                   // Poisson arrivals per second
  std::string trace_path;
  std::vector<Arrival> trace;  // read from trace_path by validate()
  double trace_speed = 1;

  // Bounds: warm-up first (requests sent before warmup_s seconds, or the first
  // warmup_requests, are not measured), then until `requests` measured requests were sent or
  // `duration_s` seconds passed since the first (0: no such bound); then in-flight requests
  // finish. Every request has a client timeout.
  double warmup_s = 0;
  std::int64_t warmup_requests = 0;
  std::int64_t requests = 0;
  double duration_s = 0;
  double request_timeout_s = 300;
  double max_time_s = 0;  // the whole run at most (requests in flight are then abandoned); 0: none
  double connect_timeout_s = 10;
  int max_outstanding = 10000;  // open loop: arrivals beyond this are errors ("client_limit")

  // Workload and request fields.
  std::string preset = "256-128";
  WorkloadOptions workload;
  double temperature = 0;
  std::optional<double> start_timeout_s;  // the body field "timeout" (supportd: start deadline)
  bool priority_field = true;             // the body field "priority" (X-Priority is always sent)

  // SLO for goodput (0: no bound).
  double slo_ttft_ms = 0;
  double slo_e2e_ms = 0;

  // Side channels.
  bool poll_server = true;  // /v1/stats or /metrics once a second
  bool progress = true;     // the live line on stderr (only drawn on a terminal)
};

// Checks the options as a whole and reads the trace file. kInvalidArgument names the flag;
// trace errors name the file and line. Sets `requests` to 100 when neither bound is given
// outside trace mode.
Status validate(BenchOptions& options);

}  // namespace supportd::bench
