// Calls to SQLite, Redis and PostgreSQL made inside a traced request are CLIENT spans with the
// OpenTelemetry database conventions, children of the request's current span; failures set
// the error status and error.type; the tiered store's write-behind, which runs with no
// request, adds none. Against the shared Redis and PostgreSQL of scripts/test.sh.
#include <gtest/gtest.h>

#include <algorithm>

#include "obs/trace/current.h"
#include "obs/trace/tracer.h"
#include "store/postgres_archive.h"
#include "store/redis_client.h"
#include "store/sqlite_session_store.h"
#include "store_test_support.h"
#include "test_servers.h"
#include "tiered_test_support.h"

namespace supportd::store::testing {
namespace {

using obs::trace::SpanKind;
using obs::trace::SpanRecord;
using obs::trace::StatusCode;

// A request's trace, current on this thread while the object lives; spans() takes what the
// calls made meanwhile added.
class TracedRequest {
 public:
  TracedRequest() : trace_(tracer_.start("", "")), scope_(trace_.get(), {}) {}
  ~TracedRequest() { trace_->end_part(); }
  std::vector<SpanRecord> spans() { return trace_->take_spans(); }
  const obs::trace::SpanId& root() const { return trace_->root_id(); }

 private:
  obs::trace::Tracer tracer_{{}, nullptr};
  std::shared_ptr<obs::trace::RequestTrace> trace_;
  obs::trace::Scope scope_;
};

std::string text_of(const SpanRecord& span, std::string_view key) {
  const obs::trace::AttributeValue* value = span.find(key);
  const std::string* text = value ? value->if_text() : nullptr;
  return text ? *text : std::string("(missing)");
}

std::int64_t integer_of(const SpanRecord& span, const char* key) {
  const obs::trace::AttributeValue* value = span.find(key);
  const std::int64_t* integer = value ? value->if_integer() : nullptr;
  return integer ? *integer : -1;
}

std::vector<std::string> names(const std::vector<SpanRecord>& spans) {
  std::vector<std::string> out;
  for (const auto& span : spans)
    out.push_back(span.name);
  return out;
}

// Every span is a database CLIENT span of `system` (empty: any), child of the request's root.
void expect_client_spans(const std::vector<SpanRecord>& spans, const std::string& system,
                         const obs::trace::SpanId& root) {
  for (const auto& span : spans) {
    EXPECT_EQ(span.kind, SpanKind::kClient) << span.name;
    EXPECT_EQ(span.parent_id, root) << span.name;
    if (!system.empty()) {
      EXPECT_EQ(text_of(span, "db.system.name"), system) << span.name;
    }
    EXPECT_EQ(text_of(span, "db.system"), text_of(span, "db.system.name")) << span.name;
    EXPECT_LE(span.start_ns, span.end_ns) << span.name;
  }
}

TEST(DbSpans, SqliteCallsNameTheirOperationAndFileWithoutValues) {
  TempDir dir;
  auto opened = SqliteSessionStore::open({dir.path() / "sessions.sqlite", false});
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto store = std::move(*opened);
  const SessionId id = *test_signer().issue("acme", "bob");
  ASSERT_TRUE(store->create(id).ok());  // no request: no span anywhere

  TracedRequest request;
  ASSERT_TRUE(store->append(id, {Role::kUser, "my card is 4111 1111 1111 1111"}).ok());
  ASSERT_TRUE(store->history(id, 10).ok());
  const SessionId unknown = *test_signer().issue("acme", "carol");
  EXPECT_EQ(store->append(unknown, {Role::kUser, "hello"}).error().code, ErrorCode::kNotFound);
  const auto spans = request.spans();
  EXPECT_EQ(names(spans), (std::vector<std::string>{"INSERT messages", "SELECT sessions",
                                                    "SELECT messages", "INSERT messages"}));
  expect_client_spans(spans, "sqlite", request.root());
  for (const auto& span : spans) {
    EXPECT_EQ(text_of(span, "db.query.summary"), span.name);
    EXPECT_EQ(text_of(span, "db.operation.name"), span.name.substr(0, span.name.find(' ')));
    EXPECT_EQ(text_of(span, "db.namespace"), (dir.path() / "sessions.sqlite").string());
    EXPECT_EQ(span.find("server.address"), nullptr);
    EXPECT_EQ(span.find("db.query.text"), nullptr);
    for (const auto& attribute : span.attributes)
      EXPECT_EQ(text_of(span, attribute.key).find("4111"), std::string::npos) << attribute.key;
    // An unknown session is the database's answer, not a failed call.
    EXPECT_EQ(span.status, StatusCode::kUnset) << span.name;
    EXPECT_EQ(span.find("error.type"), nullptr);
  }
}

TEST(DbSpans, RedisCommandsNameTheServerAndFailWithTheirKind) {
  const std::string address = required_env("SUPPORTD_TEST_REDIS");
  ASSERT_FALSE(address.empty());
  const RedisClient::Options options = *RedisClient::parse_address(address);
  RedisClient redis(options);
  const std::string key = unique_name("span-test");
  TracedRequest request;
  ASSERT_TRUE(redis.command({"SET", key, "not a number", "PX", "60000"}).ok());
  ASSERT_TRUE(redis.command({"GET", key}).ok());
  EXPECT_FALSE(redis.command({"INCR", key}).ok());  // an error reply
  RedisClient::Options closed = options;
  closed.port = supportd::testing::free_port();
  RedisClient unreachable(closed);
  EXPECT_EQ(unreachable.command({"GET", key}).error().code, ErrorCode::kUnavailable);

  const auto spans = request.spans();
  ASSERT_EQ(names(spans), (std::vector<std::string>{"SET", "GET", "INCR", "GET"}));
  expect_client_spans(spans, "redis", request.root());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    EXPECT_EQ(text_of(spans[i], "db.operation.name"), spans[i].name);
    EXPECT_EQ(text_of(spans[i], "db.namespace"), "0");
    EXPECT_EQ(text_of(spans[i], "server.address"), options.host);
    EXPECT_EQ(integer_of(spans[i], "server.port"), i < 3 ? options.port : closed.port);
    EXPECT_EQ(spans[i].find("db.query.text"), nullptr);  // the key and value stay out
  }
  EXPECT_EQ(spans[0].status, StatusCode::kUnset);
  EXPECT_EQ(spans[1].status, StatusCode::kUnset);
  EXPECT_EQ(spans[2].status, StatusCode::kError);
  EXPECT_EQ(text_of(spans[2], "error.type"), "internal");
  EXPECT_EQ(spans[3].status, StatusCode::kError);
  EXPECT_EQ(text_of(spans[3], "error.type"), "unavailable");
}

TEST(DbSpans, PostgresCallsNameTheDatabaseSchemaAndServer) {
  const std::string uri = required_env("SUPPORTD_TEST_POSTGRES");
  ASSERT_FALSE(uri.empty());
  PostgresArchive archive({uri});
  TracedRequest request;
  ASSERT_TRUE(archive.messages(unique_name("no-such-session"), 1, 10).ok());
  ASSERT_TRUE(archive.ratings(unique_name("no-such-session")).ok());
  PostgresArchive unreachable({"postgresql://supportd@127.0.0.1:" +
                               std::to_string(supportd::testing::free_port()) + "/postgres"});
  EXPECT_EQ(unreachable.messages("key", 1, 10).error().code, ErrorCode::kUnavailable);

  const auto spans = request.spans();
  ASSERT_EQ(names(spans),
            (std::vector<std::string>{"SELECT supportd.messages", "SELECT supportd.answer_ratings",
                                      "SELECT supportd.messages"}));
  expect_client_spans(spans, "postgresql", request.root());
  for (const auto& span : spans) {
    EXPECT_EQ(text_of(span, "db.operation.name"), "SELECT");
    EXPECT_EQ(text_of(span, "db.query.summary"), span.name);
    EXPECT_EQ(span.find("db.query.text"), nullptr);
  }
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(spans[i].status, StatusCode::kUnset);
    EXPECT_EQ(text_of(spans[i], "db.namespace"), "postgres.supportd");  // database.schema
    EXPECT_EQ(text_of(spans[i], "server.address"), "127.0.0.1");
    EXPECT_EQ(std::to_string(integer_of(spans[i], "server.port")),
              uri.substr(uri.rfind(':') + 1, uri.rfind('/') - uri.rfind(':') - 1));
  }
  EXPECT_EQ(spans[2].status, StatusCode::kError);
  EXPECT_EQ(text_of(spans[2], "error.type"), "unavailable");
}

TEST(DbSpans, TheTieredStoreTracesItsCallsButNotItsWriteBehind) {
  const std::string redis = required_env("SUPPORTD_TEST_REDIS");
  const std::string postgres = required_env("SUPPORTD_TEST_POSTGRES");
  ASSERT_FALSE(redis.empty() || postgres.empty());
  TempDir dir;
  auto store = open_tiered(tiered_options(dir.path(), redis, postgres));
  ASSERT_NE(store, nullptr);
  const SessionId id = *test_signer().issue(unique_name("tenant"), "bob");
  ASSERT_TRUE(store->create(id).ok());

  TracedRequest request;
  ASSERT_TRUE(store->append(id, {Role::kUser, "hello"}).ok());
  // The write-behind thread writes the message to PostgreSQL meanwhile, with no request.
  ASSERT_TRUE(store->flush(std::chrono::seconds(20)).ok());
  expect_exactly(archived_messages(postgres, id), 1, [](std::int64_t) { return "hello"; });

  const auto spans = request.spans();
  expect_client_spans(spans, "", request.root());
  std::vector<std::string> systems;
  for (const auto& span : spans) {
    systems.push_back(text_of(span, "db.system.name"));
    // The archive's write is the write-behind's: not in any request's trace.
    EXPECT_FALSE(text_of(span, "db.system.name") == "postgresql" &&
                 text_of(span, "db.operation.name") == "INSERT")
        << span.name;
  }
  // The append: the journal (SQLite) and the Redis copy, both in the request's trace.
  const auto journal = std::find_if(
      spans.begin(), spans.end(), [](const SpanRecord& s) { return s.name == "INSERT messages"; });
  ASSERT_NE(journal, spans.end());
  EXPECT_EQ(text_of(*journal, "db.system.name"), "sqlite");
  EXPECT_NE(std::find(systems.begin(), systems.end(), "redis"), systems.end());
}

}  // namespace
}  // namespace supportd::store::testing
