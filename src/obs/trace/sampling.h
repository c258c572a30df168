// Which traces are kept. At the start of a request, a parent-based ratio sampler (a caller's
// decision stands; otherwise the trace id decides, so every service sampling by ratio agrees on
// the same traces). At its end, the tail rule: whatever the sampler said, a request that failed
// or ran slower than the threshold is kept too.
// Pure values and functions: safe from any thread.
#pragma once

#include <cstdint>

#include "obs/trace/trace_context.h"

namespace supportd::obs::trace {

class RatioSampler {
 public:
  // REQUIRES: 0 <= ratio <= 1 (0: no trace without a sampled caller; 1: every trace).
  explicit RatioSampler(double ratio);

  // `parent` null: a new trace, sampled when its id's 56 random bits fall under the ratio;
  // otherwise the parent's sampled flag.
  bool sample(const SpanContext* parent, const TraceId& trace_id) const;
  double ratio() const { return ratio_; }

 private:
  double ratio_;
  std::uint64_t threshold_;  // of 2^56
};

enum class KeepReason : std::uint8_t {
  kDropped,  // neither sampled nor worth keeping
  kSampled,  // the sampler chose it
  kError,    // it failed or was refused (a 4xx or 5xx, or a span with an error status)
  kSlow,     // its latency exceeded the slow threshold
};
const char* keep_reason_name(KeepReason reason);  // "dropped", "sampled", "error", "slow"

// The end-of-request decision: error first, then slow (`slow_ms` <= 0: nothing is slow), then
// the sampler's choice.
KeepReason decide_keep(bool sampled, bool failed, double latency_ms, double slow_ms);

}  // namespace supportd::obs::trace
