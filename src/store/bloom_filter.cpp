// The Bloom filter (bloom_filter.h): sized from capacity and rate, k probes by double hashing of a
// 64-bit hash, bits set and tested with relaxed atomics.
#include "store/bloom_filter.h"

#include <algorithm>
#include <cmath>

#include "core/hash.h"

namespace supportd::store {

BloomFilter::BloomFilter(std::size_t capacity, double false_positive_rate) : capacity_(capacity) {
  const double ln2 = std::log(2.0);
  const double m = -static_cast<double>(capacity) * std::log(false_positive_rate) / (ln2 * ln2);
  bits_ = std::max<std::size_t>(64, static_cast<std::size_t>(std::ceil(m / 64.0)) * 64);
  hashes_ =
      std::clamp(static_cast<int>(std::round(m / static_cast<double>(capacity) * ln2)), 1, 30);
  words_ = std::make_unique<std::atomic<std::uint64_t>[]>(bits_ / 64);
  clear();
}

void BloomFilter::add(std::string_view key) {
  // Double hashing (Kirsch and Mitzenmacher): probe i is h1 + i * h2.
  const std::uint64_t h1 = hash64(key, 0);
  const std::uint64_t h2 = hash64(key, 0x9e3779b97f4a7c15ULL) | 1;
  for (int i = 0; i < hashes_; ++i) {
    const std::uint64_t bit = (h1 + static_cast<std::uint64_t>(i) * h2) % bits_;
    words_[bit / 64].fetch_or(std::uint64_t{1} << (bit % 64), std::memory_order_release);
  }
  added_.fetch_add(1, std::memory_order_relaxed);
}

bool BloomFilter::maybe_contains(std::string_view key) const {
  const std::uint64_t h1 = hash64(key, 0);
  const std::uint64_t h2 = hash64(key, 0x9e3779b97f4a7c15ULL) | 1;
  for (int i = 0; i < hashes_; ++i) {
    const std::uint64_t bit = (h1 + static_cast<std::uint64_t>(i) * h2) % bits_;
    if (!(words_[bit / 64].load(std::memory_order_acquire) & (std::uint64_t{1} << (bit % 64))))
      return false;
  }
  return true;
}

void BloomFilter::clear() {
  for (std::size_t i = 0; i < bits_ / 64; ++i)
    words_[i].store(0, std::memory_order_relaxed);
  added_.store(0, std::memory_order_relaxed);
}

}  // namespace supportd::store
