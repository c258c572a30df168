// The ratio sampler and the end-of-request keep rule (see sampling.h).
#include "obs/trace/sampling.h"

#include <cmath>

namespace supportd::obs::trace {
namespace {

constexpr std::uint64_t kRandomRange = std::uint64_t{1} << 56;

// The trace id's right-most 7 bytes, big-endian: the random part W3C level 2 promises.
std::uint64_t random_bits(const TraceId& id) {
  std::uint64_t value = 0;
  for (std::size_t i = TraceId::kSize - 7; i < TraceId::kSize; ++i)
    value = value << 8 | id.bytes[i];
  return value;
}

}  // namespace

RatioSampler::RatioSampler(double ratio)
    : ratio_(ratio),
      threshold_(ratio >= 1   ? kRandomRange
                 : ratio <= 0 ? 0
                              : static_cast<std::uint64_t>(std::ldexp(ratio, 56))) {}

bool RatioSampler::sample(const SpanContext* parent, const TraceId& trace_id) const {
  if (parent != nullptr) return parent->sampled();
  if (threshold_ >= kRandomRange) return true;  // every trace (the id's bits are not read)
  return random_bits(trace_id) < threshold_;
}

const char* keep_reason_name(KeepReason reason) {
  switch (reason) {
    case KeepReason::kDropped: return "dropped";
    case KeepReason::kSampled: return "sampled";
    case KeepReason::kError: return "error";
    case KeepReason::kSlow: return "slow";
  }
  return "dropped";
}

KeepReason decide_keep(bool sampled, bool failed, double latency_ms, double slow_ms) {
  if (failed) return KeepReason::kError;
  if (slow_ms > 0 && latency_ms > slow_ms) return KeepReason::kSlow;
  return sampled ? KeepReason::kSampled : KeepReason::kDropped;
}

}  // namespace supportd::obs::trace
