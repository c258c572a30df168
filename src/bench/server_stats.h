// The server's queue as it reports it, for charts over time: supportd's /v1/stats JSON
// (engine.waiting, engine.running, classes.<class>.waiting), or Prometheus text from
// /metrics: llama-server (llamacpp:requests_deferred, llamacpp:requests_processing) and
// vLLM (vllm:num_requests_waiting, vllm:num_requests_running).
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "bench/run_record.h"

namespace supportd::bench {

// A sample (time_s left 0) from supportd's /v1/stats; nothing when the body is not that.
std::optional<ServerSample> parse_supportd_stats(std::string_view body);

struct MetricsSample {
  ServerSample sample;
  const char* server_kind = "";  // "llama.cpp" or "vllm"
};

// A sample from Prometheus text exposition; nothing when neither server's gauges are there.
// Gauges with labels (vLLM's model_name) are summed.
std::optional<MetricsSample> parse_prometheus_queue(std::string_view text);

}  // namespace supportd::bench
