// Small, stable, non-cryptographic 64-bit hashes: the same value in every process, on every
// machine and across restarts (unlike std::hash), for what must agree between processes or
// spread evenly: Bloom filter probes, a conversation's routing to a model version.
// Never for secrets or anything an attacker must not steer (use SHA-256 there).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace supportd {

// `x`'s bits spread over all 64 (SplitMix64's finaliser): every output bit depends on every
// input bit, so a counter or nearby keys become well-spread draws.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// FNV-1a over the bytes of `key` (its basis xored with `seed`), then mix64.
constexpr std::uint64_t hash64(std::string_view key, std::uint64_t seed = 0) {
  std::uint64_t h = 0xcbf29ce484222325ULL ^ seed;
  for (const char c : key) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return mix64(h);
}

}  // namespace supportd
