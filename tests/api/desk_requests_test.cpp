// The desk's request bodies and socket messages decoded without a desk: what each route reads,
// and the 400s that name the field.
#include "api/desk_requests.h"

#include <gtest/gtest.h>

namespace supportd::api {
namespace {

TEST(DeskRequests, BodiesDecode) {
  EXPECT_EQ(*decode_start_body(""), "");
  EXPECT_EQ(*decode_start_body(R"({"user":"alice"})"), "alice");
  auto message = decode_message_body(R"({"text":"hi","stream":true})");
  ASSERT_TRUE(message);
  EXPECT_EQ(message->text, "hi");
  EXPECT_TRUE(message->stream);
  auto answer = decode_answer_body(R"({"question":"returns?","stream":null})");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->text, "returns?");
  EXPECT_FALSE(answer->stream);
  EXPECT_EQ(decode_feedback_body(R"({"csat":4})")->csat, 4);
  auto thumb = decode_feedback_body(R"({"seq_id":3,"thumb":"up"})");
  ASSERT_TRUE(thumb);
  EXPECT_FALSE(thumb->csat);
  EXPECT_EQ(thumb->seq_id, 3);
  EXPECT_TRUE(thumb->thumb_up);
  auto reply = decode_agent_body(R"({"text":"on it"})", "reply", "ann");
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->agent, "ann");
  EXPECT_EQ(reply->text, "on it");
  EXPECT_EQ(decode_agent_body(R"({"agent":"bob"})", "take", "ann")->agent, "bob");
}

TEST(DeskRequests, RefusalsNameTheField) {
  EXPECT_EQ(decode_message_body("{}").error().param, "text");
  EXPECT_EQ(decode_message_body(R"({"text":"a","stream":"yes"})").error().param, "stream");
  EXPECT_EQ(decode_answer_body(R"({"question":1})").error().param, "question");
  EXPECT_EQ(decode_start_body(R"({"user":[]})").error().param, "user");
  EXPECT_EQ(decode_feedback_body(R"({"csat":4.5})").error().param, "csat");
  EXPECT_EQ(decode_feedback_body(R"({"thumb":"up"})").error().param, "seq_id");
  EXPECT_EQ(decode_feedback_body(R"({"seq_id":1,"thumb":"sideways"})").error().param, "thumb");
  EXPECT_FALSE(decode_feedback_body("{}"));
  EXPECT_EQ(decode_agent_body("{}", "take", "").error().param, "agent");
  EXPECT_EQ(decode_agent_body("{}", "reply", "ann").error().param, "text");
  EXPECT_FALSE(decode_message_body("[1]"));
}

TEST(DeskRequests, IntegerParametersArePlainDigitsInRange) {
  http::Request request;
  request.query = "limit=20&before=x&neg=-1&big=99999999999999999999";
  EXPECT_EQ(*integer_param(request, "limit", 50, 1, 1000), 20);
  EXPECT_EQ(*integer_param(request, "absent", 50, 1, 1000), 50);
  EXPECT_EQ(integer_param(request, "before", 0, 0, 10).error().param, "before");
  EXPECT_FALSE(integer_param(request, "neg", 0, -5, 10));
  EXPECT_FALSE(integer_param(request, "big", 0, 0, INT64_MAX));
}

TEST(DeskRequests, SocketMessages) {
  using Kind = SocketMessage::Kind;
  EXPECT_EQ(decode_socket_message(R"({"type":"ping"})").kind, Kind::kPing);
  const SocketMessage ask = decode_socket_message(R"({"type":"message","text":"hello"})");
  EXPECT_EQ(ask.kind, Kind::kAsk);
  EXPECT_EQ(ask.text, "hello");
  for (const char* refused : {"not json", "[]", R"({"type":""})", R"({"type":3})"}) {
    const SocketMessage message = decode_socket_message(refused);
    EXPECT_EQ(message.kind, Kind::kRefused) << refused;
    EXPECT_NE(message.text.find("send JSON like"), std::string::npos) << refused;
  }
  const SocketMessage unknown = decode_socket_message(R"({"type":"message","text":1})");
  EXPECT_EQ(unknown.kind, Kind::kRefused);
  EXPECT_NE(unknown.text.find("unknown message type"), std::string::npos);
}

}  // namespace
}  // namespace supportd::api
