// A Bloom filter of issued session ids: "definitely never issued" or "maybe issued".
// Sized for `capacity` keys at `false_positive_rate`: m = -n ln p / (ln 2)^2 bits and
// k = (m / n) ln 2 hash functions (1M ids at 0.1% take 1.8 MB and 10 probes). Past capacity
// the false-positive rate grows; never a false negative.
// Thread-safety: add() and maybe_contains() may run concurrently from any threads (atomic
// words); clear() must not race with them.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

namespace supportd::store {

class BloomFilter {
 public:
  // REQUIRES: capacity > 0, 0 < false_positive_rate < 1.
  BloomFilter(std::size_t capacity, double false_positive_rate);

  void add(std::string_view key);
  // False: `key` was never added. True: it probably was.
  bool maybe_contains(std::string_view key) const;
  void clear();

  std::size_t bits() const { return bits_; }
  int hashes() const { return hashes_; }
  std::size_t capacity() const { return capacity_; }
  // Keys added so far (counting repeats).
  std::size_t added() const { return added_.load(std::memory_order_relaxed); }

 private:
  std::size_t capacity_;
  std::size_t bits_;
  int hashes_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> words_;
  std::atomic<std::size_t> added_{0};
};

}  // namespace supportd::store
