// An in-process cache with a size bound and an expiry: least-recently-used entries are evicted
// when it is full, and an entry older than its TTL is never returned. The answer cache's L1.
// Thread-safety: every method may be called from any thread (one mutex; get and put are O(1)).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace supportd::store {

struct TtlLruStats {
  std::int64_t hits = 0;
  std::int64_t misses = 0;       // absent or expired
  std::int64_t evictions = 0;    // pushed out by the size bound
  std::int64_t expirations = 0;  // found expired
  std::size_t size = 0;
};

template <typename Value>
class TtlLru {
 public:
  using Clock = std::chrono::steady_clock;

  // REQUIRES: capacity > 0.
  TtlLru(std::size_t capacity, std::chrono::milliseconds ttl,
         std::function<Clock::time_point()> now = Clock::now)
      : capacity_(capacity), ttl_(ttl), now_(std::move(now)) {}

  // The value, when present and not expired; marks it most recently used.
  std::optional<Value> get(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) {
      ++stats_.misses;
      return std::nullopt;
    }
    if (now_() >= it->second->expires) {
      entries_.erase(it->second);
      index_.erase(it);
      ++stats_.expirations;
      ++stats_.misses;
      return std::nullopt;
    }
    entries_.splice(entries_.begin(), entries_, it->second);
    ++stats_.hits;
    return it->second->value;
  }

  // Stores `value` for the default TTL (or `ttl`), replacing any previous value; evicts the
  // least recently used entry when full.
  void put(const std::string& key, Value value) { put(key, std::move(value), ttl_); }
  void put(const std::string& key, Value value, std::chrono::milliseconds ttl) {
    std::lock_guard lock(mutex_);
    const Clock::time_point expires = now_() + ttl;
    auto it = index_.find(key);
    if (it != index_.end()) {
      it->second->value = std::move(value);
      it->second->expires = expires;
      entries_.splice(entries_.begin(), entries_, it->second);
      return;
    }
    if (index_.size() >= capacity_) {
      index_.erase(entries_.back().key);
      entries_.pop_back();
      ++stats_.evictions;
    }
    entries_.push_front(Entry{key, std::move(value), expires});
    index_.emplace(key, entries_.begin());
  }

  void erase(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = index_.find(key);
    if (it == index_.end()) return;
    entries_.erase(it->second);
    index_.erase(it);
  }

  void clear() {
    std::lock_guard lock(mutex_);
    entries_.clear();
    index_.clear();
  }

  std::size_t capacity() const { return capacity_; }

  TtlLruStats stats() const {
    std::lock_guard lock(mutex_);
    TtlLruStats stats = stats_;
    stats.size = index_.size();
    return stats;
  }

 private:
  struct Entry {
    std::string key;
    Value value;
    Clock::time_point expires;
  };

  const std::size_t capacity_;
  const std::chrono::milliseconds ttl_;
  const std::function<Clock::time_point()> now_;

  mutable std::mutex mutex_;
  std::list<Entry> entries_;  // guarded by mutex_; front = most recently used
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_;  // guarded
  TtlLruStats stats_;                                                           // guarded by mutex_
};

}  // namespace supportd::store
