// Opening TieredSessionStores against given servers, and reading what Redis and PostgreSQL
// hold, for the tiered store's tests.
#pragma once

#include <gtest/gtest.h>

#include "store/postgres_archive.h"
#include "store/redis_client.h"
#include "store/session_codec.h"
#include "store/tiered_session_store.h"

namespace supportd::store::testing {

inline TieredSessionStore::Options tiered_options(const std::filesystem::path& dir,
                                                  const std::string& redis,
                                                  const std::string& postgres) {
  TieredSessionStore::Options options;
  options.journal_path = dir / "journal.sqlite";
  options.redis = *RedisClient::parse_address(redis);
  options.redis.max_backoff = std::chrono::milliseconds(400);
  options.postgres.uri = postgres;
  options.postgres.max_backoff = std::chrono::milliseconds(400);
  options.write_behind_idle = std::chrono::milliseconds(50);
  options.recent_messages = 8;  // small, so that tests cross the journal's window
  return options;
}

inline std::unique_ptr<TieredSessionStore> open_tiered(const TieredSessionStore::Options& options) {
  Result<std::unique_ptr<TieredSessionStore>> store = TieredSessionStore::open(options);
  EXPECT_TRUE(store.ok()) << store.error().message;
  return store.ok() ? std::move(*store) : nullptr;
}

// The seq_ids and texts PostgreSQL holds for `id` (ascending).
inline std::vector<Message> archived_messages(const std::string& postgres, const SessionId& id) {
  PostgresArchive archive({postgres});
  Result<std::vector<Message>> messages = archive.messages(id.key(), 1, 1'000'000);
  EXPECT_TRUE(messages.ok()) << messages.error().message;
  return messages.ok() ? *messages : std::vector<Message>();
}

// The Redis copy of `id`, if any.
inline std::optional<SessionView> cached_view(const std::string& redis, const SessionId& id) {
  RedisClient client(*RedisClient::parse_address(redis));
  Result<RedisReply> reply = client.command({"GET", "session:" + id.key()});
  EXPECT_TRUE(reply.ok()) << reply.error().message;
  if (!reply.ok() || reply->type != RedisReply::Type::kString) return std::nullopt;
  Result<SessionView> view = decode_session(reply->string);
  EXPECT_TRUE(view.ok());
  return view.ok() ? std::optional<SessionView>(*view) : std::nullopt;
}

// Every message 1..n is present once, in order, with the text `text(i)`.
template <typename Text>
void expect_exactly(const std::vector<Message>& messages, std::int64_t n, Text text) {
  ASSERT_EQ(static_cast<std::int64_t>(messages.size()), n);
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(messages[i].seq_id, i + 1);
    ASSERT_EQ(messages[i].text, text(i + 1)) << "seq " << i + 1;
  }
}

}  // namespace supportd::store::testing
