// validate() (options.h): every flag's range and the checks that need several at once (the load
// mode's own flags, the trace file read), each error naming the flag; 100 requests by default.
#include "bench/options.h"

#include <fmt/format.h>

namespace supportd::bench {

const char* load_mode_name(LoadMode mode) {
  switch (mode) {
    case LoadMode::kClosed: return "closed";
    case LoadMode::kPoisson: return "poisson";
    case LoadMode::kTrace: return "trace";
  }
  return "closed";
}

Status validate(BenchOptions& o) {
  auto bad = [](const std::string& flag, const std::string& why) {
    return Error::invalid(flag + ": " + why, flag);
  };
  if (o.url.rfind("http://", 0) != 0 && o.url.rfind("https://", 0) != 0)
    return bad("--url", "'" + o.url + "' must start with http://");
  if (o.concurrency < 1) return bad("--concurrency", "must be at least 1");
  if (o.mode == LoadMode::kClosed && o.concurrency > o.max_outstanding) {
    return bad("--concurrency", fmt::format("{} is more than --max-outstanding {}", o.concurrency,
                                            o.max_outstanding));
  }
  if (o.mode == LoadMode::kPoisson && !(o.rate > 0)) return bad("--rate", "must be positive");
  if (o.mode == LoadMode::kTrace) {
    if (!(o.trace_speed > 0)) return bad("--trace-speed", "must be positive");
    if (o.trace.empty()) {
      if (o.trace_path.empty()) return bad("--trace", "needs a file");
      auto trace = read_trace(o.trace_path);
      if (!trace) return trace.error();
      o.trace = std::move(*trace);
    }
  }
  if (!(o.ramp_up_s >= 0)) return bad("--ramp-up", "must not be negative");
  if (!(o.warmup_s >= 0)) return bad("--warmup", "must not be negative");
  if (o.warmup_requests < 0) return bad("--warmup-requests", "must not be negative");
  if (o.requests < 0) return bad("--requests", "must not be negative");
  if (!(o.duration_s >= 0)) return bad("--duration", "must not be negative");
  if (!(o.request_timeout_s > 0)) return bad("--request-timeout", "must be positive");
  if (!(o.max_time_s >= 0)) return bad("--max-time", "must not be negative");
  if (!(o.connect_timeout_s > 0)) return bad("--connect-timeout", "must be positive");
  if (o.max_outstanding < 1) return bad("--max-outstanding", "must be at least 1");
  if (!(o.temperature >= 0 && o.temperature <= 2))
    return bad("--temperature", "must be within [0, 2]");
  if (o.start_timeout_s && !(*o.start_timeout_s > 0)) return bad("--timeout", "must be positive");
  if (!(o.slo_ttft_ms >= 0)) return bad("--slo-ttft", "must not be negative");
  if (!(o.slo_e2e_ms >= 0)) return bad("--slo-e2e", "must not be negative");
  const auto& w = o.workload;
  if (!(w.repeat_ratio >= 0 && w.repeat_ratio <= 1))
    return bad("--repeat-ratio", "must be within [0, 1]");
  if (w.system_prompt_tokens < 0) return bad("--system-prompt-tokens", "must not be negative");
  if (o.requests == 0 && o.duration_s == 0 && o.mode != LoadMode::kTrace) o.requests = 100;
  return {};
}

}  // namespace supportd::bench
