// Trace and span ids (see ids.h): hex in and out, and random ones from a per-thread
// xoshiro256** generator seeded with getrandom(2).
#include "obs/trace/ids.h"

#include <sys/random.h>

#include <chrono>
#include <cstring>
#include <thread>

namespace supportd::obs::trace {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case too: W3C Trace Context asks for lower case
}

// xoshiro256** (Blackman and Vigna): fast, 256 bits of state, passes BigCrush. Ids need to be
// unpredictable enough not to collide across processes, not cryptographic secrets.
class Generator {
 public:
  Generator() {
    std::uint64_t seed[4] = {};
    std::size_t got = 0;
    while (got < sizeof seed) {
      const ssize_t n = getrandom(reinterpret_cast<char*>(seed) + got, sizeof seed - got, 0);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got < sizeof seed) {  // no kernel randomness: time and thread still differ per thread
      seed[0] ^= static_cast<std::uint64_t>(
          std::chrono::high_resolution_clock::now().time_since_epoch().count());
      seed[1] ^= std::hash<std::thread::id>{}(std::this_thread::get_id());
      seed[2] ^= reinterpret_cast<std::uintptr_t>(&got);
    }
    for (int i = 0; i < 4; ++i)
      state_[i] = splitmix(seed[i] + static_cast<std::uint64_t>(i));
  }

  std::uint64_t next() {
    const std::uint64_t result = rotate(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotate(state_[3], 45);
    return result;
  }

 private:
  static std::uint64_t rotate(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

  std::uint64_t state_[4];
};

Generator& generator() {
  thread_local Generator g;
  return g;
}

template <std::size_t N>
Id<N> random_id() {
  Id<N> id;
  do {
    for (std::size_t at = 0; at < N; at += 8) {
      const std::uint64_t word = generator().next();
      std::memcpy(id.bytes.data() + at, &word, std::min<std::size_t>(8, N - at));
    }
  } while (id.empty());
  return id;
}

}  // namespace

template <std::size_t N>
void write_hex(const Id<N>& id, char* out) {
  for (std::size_t i = 0; i < N; ++i) {
    out[2 * i] = kHexDigits[id.bytes[i] >> 4];
    out[2 * i + 1] = kHexDigits[id.bytes[i] & 0xf];
  }
}

template <std::size_t N>
std::string Id<N>::hex() const {
  std::string out(2 * N, '0');
  write_hex(*this, out.data());
  return out;
}

template <std::size_t N>
std::optional<Id<N>> Id<N>::from_hex(std::string_view text) {
  if (text.size() != 2 * N) return std::nullopt;
  Id id;
  for (std::size_t i = 0; i < N; ++i) {
    const int high = hex_value(text[2 * i]);
    const int low = hex_value(text[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    id.bytes[i] = static_cast<std::uint8_t>(high << 4 | low);
  }
  return id;
}

TraceId random_trace_id() {
  return random_id<16>();
}

SpanId random_span_id() {
  return random_id<8>();
}

template struct Id<16>;
template struct Id<8>;
template void write_hex(const Id<16>&, char*);
template void write_hex(const Id<8>&, char*);

}  // namespace supportd::obs::trace
