// How a generation's end becomes the HTTP answer (api/completion_sinks.h): a refusal that comes
// as the end (a cluster's engine refusing what its gateway queued) is answered as the same
// refusal at submit would be, not as a failure of the server.
#include "api/completion_sinks.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace supportd::api {
namespace {

namespace json = boost::json;

engine::Completion ended(engine::FinishReason reason, Error error) {
  engine::Completion c;
  c.reason = reason;
  c.error = std::move(error);
  return c;
}

http::Response collect(const engine::Completion& c) {
  auto reply = std::make_shared<http::ReplyStream>();
  auto sink = make_collecting_sink(reply, CompletionFormat{true, "chatcmpl-1", "m", 0, false});
  sink->on_done(c);
  http::ReplyStream::Batch batch = reply->take();
  EXPECT_TRUE(batch.response.has_value());
  return batch.response.value_or(http::Response{});
}

std::string header(const http::Response& response, std::string_view name) {
  for (const auto& [key, value] : response.headers) {
    if (key == name) return value;
  }
  return {};
}

TEST(CompletionSinks, ARefusalThatCameAsTheEndIsAnsweredAsThatRefusal) {
  Error deadline =
      Error::make(ErrorCode::kDeadline, "the request cannot start before its deadline");
  deadline.retry_after_s = 2;
  const http::Response late = collect(ended(engine::FinishReason::kError, deadline));
  EXPECT_EQ(late.status, 503) << late.body;
  EXPECT_EQ(json::parse(late.body).at("error").at("code"), json::value("deadline_exceeded"));
  EXPECT_EQ(header(late, "Retry-After"), "2");

  const http::Response full = collect(
      ended(engine::FinishReason::kError, Error::make(ErrorCode::kOverloaded, "queue full")));
  EXPECT_EQ(full.status, 429) << full.body;
  EXPECT_EQ(json::parse(full.body).at("error").at("code"), json::value("queue_full"));
}

TEST(CompletionSinks, AFailureOfTheEngineIsStillA500) {
  const http::Response failed = collect(
      ended(engine::FinishReason::kError, Error::make(ErrorCode::kInternal, "the engine failed")));
  EXPECT_EQ(failed.status, 500) << failed.body;
  EXPECT_EQ(json::parse(failed.body).at("error").at("code"), json::value("internal"));
}

TEST(CompletionSinks, AStreamRefusedBeforeItsFirstTokenGetsTheRefusalsStatus) {
  auto reply = std::make_shared<http::ReplyStream>();
  auto sink = make_streaming_sink(reply, CompletionFormat{true, "chatcmpl-2", "m", 0, false});
  sink->on_done(ended(engine::FinishReason::kError,
                      Error::make(ErrorCode::kDeadline, "cannot start before its deadline")));
  http::ReplyStream::Batch batch = reply->take();
  ASSERT_TRUE(batch.response.has_value());
  EXPECT_EQ(batch.response->status, 503) << batch.response->body;
}

}  // namespace
}  // namespace supportd::api
