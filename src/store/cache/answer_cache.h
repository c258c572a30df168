// The answer cache: answers the desk already gave, keyed by the normalized question and the
// knowledge-base version (a new KB version never serves an old answer). L1 is an in-process
// TtlLru<CachedAnswer>; L2 is RedisAnswerCache, shared by every process; the desk composes
// them (L1, then L2, then generate; fill both) and pre-warms L1 with the keys
// AnswerAccessLog::hottest() returns.
// Thread-safety: every function and method may be called from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "store/cache/ttl_lru.h"
#include "store/redis_client.h"

namespace supportd::store {

struct CachedAnswer {
  std::string text;
  std::vector<std::string> citations;  // what the answer cites (knowledge-base document ids)
  std::int64_t created_ms = 0;
  bool operator==(const CachedAnswer&) const = default;
};

using AnswerLru = TtlLru<CachedAnswer>;

// Lower-cases ASCII letters, folds every run of whitespace into one space, trims, and drops
// trailing question marks, exclamation marks and full stops (ASCII and full-width), so
// "  Where is my PARCEL?? " and "where is my parcel" are the same question. Invalid UTF-8
// is replaced (U+FFFD) first.
std::string normalize_question(std::string_view question);

// "answer:" + hex SHA-256 of (kb_version, normalize_question(question)).
std::string answer_key(std::string_view question, std::string_view kb_version);

class RedisAnswerCache {
 public:
  // `ttl`: how long an answer stays in Redis unless put() says otherwise.
  RedisAnswerCache(RedisClient::Options redis, std::chrono::milliseconds ttl);

  // The answer stored under `key`, or nullopt. unavailable when Redis is down (fast: the
  // caller generates the answer instead). A value that cannot be decoded is a miss.
  Result<std::optional<CachedAnswer>> get(const std::string& key);
  // Several keys in one round trip (MGET), in order.
  Result<std::vector<std::optional<CachedAnswer>>> get_many(const std::vector<std::string>& keys);
  // Stores `answer` for the default TTL, or `ttl` when positive.
  Status put(const std::string& key, const CachedAnswer& answer,
             std::chrono::milliseconds ttl = std::chrono::milliseconds(0));

  struct Stats {
    std::int64_t hits = 0;
    std::int64_t misses = 0;
    std::int64_t errors = 0;  // Redis unreachable or timed out
  };
  Stats stats() const;
  // One round trip (PING): unavailable, naming the address and why, when Redis does not answer.
  Status ping();

 private:
  RedisClient redis_;
  const std::chrono::milliseconds ttl_;
  std::atomic<std::int64_t> hits_{0};
  std::atomic<std::int64_t> misses_{0};
};

// Fills `l1` with the answers L2 holds for `keys` (the hottest first); returns how many.
// Keys L2 does not have are skipped; unavailable when Redis is down.
Result<std::size_t> prewarm(AnswerLru& l1, RedisAnswerCache& l2,
                            const std::vector<std::string>& keys);

}  // namespace supportd::store
