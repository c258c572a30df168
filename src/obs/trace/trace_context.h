// W3C Trace Context (https://www.w3.org/TR/trace-context/): the `traceparent` and `tracestate`
// headers, parsed and written. A caller's span continues through them; anything malformed is
// refused here (nullopt or empty), and the caller then starts a new trace: never an error.
// Pure functions on plain values: safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "obs/trace/ids.h"

namespace supportd::obs::trace {

inline constexpr std::uint8_t kSampledFlag = 0x01;

// Where a span sits: its trace, its own id, the trace flags and the vendors' tracestate.
struct SpanContext {
  TraceId trace_id;
  SpanId span_id;
  std::uint8_t flags = 0;  // bit 0: sampled
  std::string tracestate;  // as received (validated), passed on unchanged

  bool sampled() const { return (flags & kSampledFlag) != 0; }
};

// `traceparent` as received (surrounding spaces and tabs allowed). Version 00 must be exactly
// "00-<32 hex>-<16 hex>-<2 hex>" in lower case; a later version is read by its first 55
// characters when the rest starts with '-'; version ff, an all-zero trace or span id, upper
// case hex or anything else is refused. The tracestate is left empty.
std::optional<SpanContext> parse_traceparent(std::string_view header);

// "00-<trace id>-<span id>-<flags>" for `trace_id`, `span_id` and `flags`: 2 + 1 + 32 + 1 + 16 +
// 1 + 2 characters.
constexpr std::size_t kTraceparentSize = 55;
std::string format_traceparent(const TraceId& trace_id, const SpanId& span_id, std::uint8_t flags);
// The same into `out`, which has room for kTraceparentSize characters.
void write_traceparent(const TraceId& trace_id, const SpanId& span_id, std::uint8_t flags,
                       char* out);

// `tracestate` (several headers joined with ','), checked against the W3C grammar: at most 32
// list members of key=value with the spec's keys and values, no key twice; empty members and
// spaces around commas are allowed. Returns the list as received, or empty when it breaks a
// rule (the whole header is then dropped, as the spec allows). A valid list longer than 512
// characters loses members from its end until it fits.
std::string parse_tracestate(std::string_view header);

}  // namespace supportd::obs::trace
