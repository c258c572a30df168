// Opens every store supportd needs from one configuration: the embedded default (SQLite in
// the data directory) when no servers are named, the tiered store (Redis + PostgreSQL +
// local journal) when both are; the answer cache's L1 always, its L2 when Redis is named.
// This is what main() calls; the desk receives the result.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "core/status.h"
#include "store/cache/answer_access_log.h"
#include "store/cache/answer_cache.h"
#include "store/sessions.h"

namespace supportd::store {

struct StoreConfig {
  // sessions.sqlite (embedded) or journal.sqlite (tiered), session-secret, answer-access.log.
  std::filesystem::path data_dir;
  std::string redis;     // "host:port"; empty: no Redis
  std::string postgres;  // libpq URI; empty: no PostgreSQL (then Redis only caches answers)
  // At least 32 bytes, the same in every process sharing the stores. Empty: read from (or
  // generated into) {data_dir}/session-secret.
  std::string session_secret;
  std::chrono::milliseconds session_ttl{900'000};  // Redis expiry of a session's copy
  std::size_t recent_messages = 100;               // per session, in Redis and in the journal
  bool sync_every_commit = false;  // fsync every commit (survives power loss; ~4 ms each)
  std::chrono::milliseconds redis_timeout{250};      // connect and per command
  std::chrono::milliseconds postgres_timeout{2000};  // connect and per statement
  std::chrono::milliseconds answer_ttl{3'600'000};   // L2
  std::size_t answer_l1_entries = 10'000;
  std::chrono::milliseconds answer_l1_ttl{300'000};
  // Bloom filter sizing. With PostgreSQL (the tiered store, shared by several gateways),
  // admit_signed_unknown is always on.
  Sessions::Options sessions;
};

struct Stores {
  std::unique_ptr<Sessions> sessions;
  std::unique_ptr<AnswerLru> answers_l1;
  std::unique_ptr<RedisAnswerCache> answers_l2;  // null without Redis
  std::unique_ptr<AnswerAccessLog> answer_log;
};

// invalid_argument names a bad setting (PostgreSQL without Redis, a short secret, a bad
// address); io/corrupt when the data directory cannot be used. Redis and PostgreSQL being
// down is not an error: the tiered store starts and catches up when they return.
Result<Stores> open_stores(const StoreConfig& config);

}  // namespace supportd::store
