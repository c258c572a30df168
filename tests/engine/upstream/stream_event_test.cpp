// An upstream stream's events decoded: the text, usage, finish reason and errors it carries, and
// shapes a foreign server may send (a choice that is not an object) skipped rather than thrown.
#include "engine/upstream/stream_event.h"

#include <gtest/gtest.h>

namespace supportd::engine::upstream {
namespace {

TEST(StreamEvent, ReadsTextUsageAndFinishReason) {
  auto chat =
      decode_stream_event(R"({"choices":[{"delta":{"content":"Hel"},"finish_reason":"length"}],)"
                          R"("usage":{"prompt_tokens":5,"completion_tokens":2}})");
  ASSERT_TRUE(chat);
  EXPECT_EQ(chat->text, "Hel");
  EXPECT_EQ(chat->reason, FinishReason::kLength);
  EXPECT_EQ(chat->prompt_tokens, 5);
  EXPECT_EQ(chat->completion_tokens, 2);
  auto completion = decode_stream_event(R"({"choices":[{"text":"lo","finish_reason":"stop"}]})");
  ASSERT_TRUE(completion);
  EXPECT_EQ(completion->text, "lo");
  EXPECT_EQ(completion->reason, FinishReason::kStop);
}

TEST(StreamEvent, DoneAndErrorsEndTheStream) {
  EXPECT_TRUE(decode_stream_event("[DONE]")->done);
  auto error = decode_stream_event(R"({"error":{"message":"overloaded"}})");
  ASSERT_TRUE(error);
  EXPECT_EQ(error->error, R"({"message":"overloaded"})");
}

TEST(StreamEvent, ForeignShapesAreSkippedNotThrown) {
  EXPECT_FALSE(decode_stream_event("not json"));
  EXPECT_FALSE(decode_stream_event("[1,2]"));
  // A choice that is not an object used to throw (Boost.JSON's as_object), failing the whole
  // answer as an internal error; now skipped like any other event without text.
  for (const char* odd : {R"({"choices":[1]})", R"({"choices":["a"]})", R"({"choices":[null]})",
                          R"({"choices":[{"delta":[],"text":3}]})"}) {
    auto event = decode_stream_event(odd);
    ASSERT_TRUE(event) << odd;
    EXPECT_EQ(event->text, "") << odd;
    EXPECT_FALSE(event->reason) << odd;
  }
}

}  // namespace
}  // namespace supportd::engine::upstream
