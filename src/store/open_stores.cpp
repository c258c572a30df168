// open_stores (open_stores.h): checks the configuration, loads or creates the session secret,
// opens the embedded or the tiered store, the Sessions in front of it, and the answer caches.
#include "store/open_stores.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "store/sqlite_session_store.h"
#include "store/tiered_session_store.h"

namespace supportd::store {

Result<Stores> open_stores(const StoreConfig& config) {
  if (config.data_dir.empty()) return Error::invalid("a data directory is needed", "data_dir");
  if (!config.postgres.empty() && config.redis.empty()) {
    return Error::invalid(
        "PostgreSQL needs Redis in front of it (set both, or neither for the "
        "embedded SQLite store)",
        "redis");
  }
  std::error_code ec;
  std::filesystem::create_directories(config.data_dir, ec);
  if (ec) {
    return Error::make(ErrorCode::kIo,
                       "cannot create " + config.data_dir.string() + ": " + ec.message());
  }
  // A read-only file system would otherwise surface as SQLite's "attempt to write a readonly
  // database", naming neither the file nor the directory.
  if (::access(config.data_dir.c_str(), W_OK) != 0) {
    return Error::make(ErrorCode::kIo, "the data directory " + config.data_dir.string() +
                                           " is not writable (" + std::strerror(errno) +
                                           "): supportd keeps its conversations there");
  }
  std::string secret = config.session_secret;
  if (secret.empty()) {
    Result<std::string> stored =
        SessionSigner::load_or_create_secret(config.data_dir / "session-secret");
    if (!stored) return stored.error();
    secret = std::move(*stored);
  }
  Result<SessionSigner> signer = SessionSigner::create(std::move(secret));
  if (!signer) return signer.error();

  std::optional<RedisClient::Options> redis;
  if (!config.redis.empty()) {
    Result<RedisClient::Options> parsed = RedisClient::parse_address(config.redis);
    if (!parsed) return parsed.error();
    parsed->connect_timeout = config.redis_timeout;
    parsed->command_timeout = config.redis_timeout;
    redis = std::move(*parsed);
  }

  std::unique_ptr<SessionStore> store;
  if (!config.postgres.empty()) {
    TieredSessionStore::Options options;
    options.journal_path = config.data_dir / "journal.sqlite";
    options.sync_every_commit = config.sync_every_commit;
    options.redis = *redis;
    options.postgres.uri = config.postgres;
    options.postgres.connect_timeout = config.postgres_timeout;
    options.postgres.statement_timeout = config.postgres_timeout;
    options.session_ttl = config.session_ttl;
    options.recent_messages = config.recent_messages;
    Result<std::unique_ptr<TieredSessionStore>> tiered = TieredSessionStore::open(options);
    if (!tiered) return tiered.error();
    store = std::move(*tiered);
    spdlog::info("store: sessions in Redis {} and PostgreSQL, journal {}", config.redis,
                 options.journal_path.string());
  } else {
    const std::filesystem::path path = config.data_dir / "sessions.sqlite";
    Result<std::unique_ptr<SqliteSessionStore>> sqlite =
        SqliteSessionStore::open({path, config.sync_every_commit});
    if (!sqlite) return sqlite.error();
    store = std::move(*sqlite);
    spdlog::info("store: sessions in {} (embedded SQLite)", path.string());
  }

  Stores stores;
  Sessions::Options sessions_options = config.sessions;
  // Redis and PostgreSQL are shared by every gateway in front of them: a session another
  // gateway created after this one built its Bloom filter is signed with the same secret, and
  // must be looked up, not refused as never issued (the signature still refuses forged ids).
  if (!config.postgres.empty()) sessions_options.admit_signed_unknown = true;
  Result<std::unique_ptr<Sessions>> sessions =
      Sessions::open(std::move(store), std::move(*signer), sessions_options);
  if (!sessions) return sessions.error();
  stores.sessions = std::move(*sessions);
  stores.answers_l1 = std::make_unique<AnswerLru>(
      std::max<std::size_t>(1, config.answer_l1_entries), config.answer_l1_ttl);
  if (redis) {
    stores.answers_l2 = std::make_unique<RedisAnswerCache>(*redis, config.answer_ttl);
    // A cache may be down (answers are generated instead), but an operator who named one
    // should hear at once that it does not answer, not find out from a hit ratio of zero.
    if (Status reached = stores.answers_l2->ping(); !reached) {
      spdlog::warn("store: {}; the shared answer cache stays off until it does",
                   reached.error().message);
    }
  }
  Result<std::unique_ptr<AnswerAccessLog>> log =
      AnswerAccessLog::open({config.data_dir / "answer-access.log"});
  if (!log) return log.error();
  stores.answer_log = std::move(*log);
  return stores;
}

}  // namespace supportd::store
