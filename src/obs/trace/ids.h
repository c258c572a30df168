// Trace and span identifiers (W3C Trace Context: 16 and 8 bytes, never all zero), their
// lower-case hex form, and fresh random ones.
// Thread-safety: the types are plain values; random_trace_id() and random_span_id() may be
// called from any thread (each thread draws from its own generator, seeded from the kernel's
// random source once).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace supportd::obs::trace {

template <std::size_t N>
struct Id {
  std::array<std::uint8_t, N> bytes{};

  static constexpr std::size_t kSize = N;
  // All zero: "no id" (invalid on the wire).
  bool empty() const {
    for (std::uint8_t b : bytes)
      if (b != 0) return false;
    return true;
  }
  // 2N lower-case hex digits.
  std::string hex() const;
  // Exactly 2N hex digits, lower case only (W3C refuses upper case); nullopt otherwise. An
  // all-zero id parses (the caller decides whether it is valid where it appears).
  static std::optional<Id> from_hex(std::string_view text);

  bool operator==(const Id&) const = default;
};

using TraceId = Id<16>;
using SpanId = Id<8>;

// Random, never all zero. A trace id's right-most 7 bytes are uniformly random, as W3C
// Trace Context level 2 asks (the ratio sampler reads them).
TraceId random_trace_id();
SpanId random_span_id();

// Writes the 2N hex digits of `id` at `out` (no terminator).
template <std::size_t N>
void write_hex(const Id<N>& id, char* out);

extern template struct Id<16>;
extern template struct Id<8>;
extern template void write_hex(const Id<16>&, char*);
extern template void write_hex(const Id<8>&, char*);

}  // namespace supportd::obs::trace
