// The wire format between gateways and engine nodes: every message reads back as written, and
// anything else (another version, a wrong type, a missing field) is refused by name.
#include <gtest/gtest.h>

#include "bus/wire.h"

namespace supportd::bus {
namespace {

TEST(WireTest, WorkOrderReadsBackWithEveryField) {
  WorkOrder order;
  order.request_id = "gw-1-7";
  order.gateway_id = "gw-1";
  engine::GenerationRequest& r = order.request;
  r.id = "session-3";
  r.chat = true;
  r.messages = {{"system", "be brief"}, {"user", "where is my \"parcel\"?\n\u00e9"}};
  r.sampling.temperature = 0.25f;
  r.sampling.top_k = 7;
  r.sampling.seed = 42;
  r.max_tokens = 33;
  r.stop = {"\n\n", "END"};
  r.ignore_eos = true;
  r.background = true;
  r.priority = sched::Priority::kHigh;
  r.tenant = "acme";
  r.deadline = engine::Clock::now() + std::chrono::seconds(30);

  auto back = decode_work_order(encode(order));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->request_id, "gw-1-7");
  EXPECT_EQ(back->gateway_id, "gw-1");
  const engine::GenerationRequest& b = back->request;
  EXPECT_EQ(b.id, "session-3");
  EXPECT_TRUE(b.chat);
  ASSERT_EQ(b.messages.size(), 2u);
  EXPECT_EQ(b.messages[1].content, r.messages[1].content);
  EXPECT_FLOAT_EQ(b.sampling.temperature, 0.25f);
  EXPECT_EQ(b.sampling.top_k, 7);
  EXPECT_EQ(b.sampling.seed, 42u);
  EXPECT_EQ(b.max_tokens, 33);
  EXPECT_EQ(b.stop, r.stop);
  EXPECT_TRUE(b.ignore_eos);
  EXPECT_TRUE(b.background);
  EXPECT_EQ(b.priority, sched::Priority::kHigh);
  EXPECT_EQ(b.tenant, "acme");
  ASSERT_TRUE(b.deadline.has_value());
  // The deadline travels as wall-clock milliseconds: back within a few of what was sent.
  EXPECT_LT(std::chrono::abs(*b.deadline - *r.deadline), std::chrono::milliseconds(50));
  EXPECT_TRUE(b.continuation.empty());
}

TEST(WireTest, AnOrderWithoutDeadlineOrSeedHasNone) {
  WorkOrder order{"g-1", "g", {}};
  order.request.prompt = "hello";
  auto back = decode_work_order(encode(order));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->request.deadline.has_value());
  EXPECT_FALSE(back->request.sampling.seed.has_value());
  EXPECT_EQ(back->request.prompt, "hello");
  EXPECT_EQ(back->request.max_tokens, -1);
}

TEST(WireTest, StreamEventsReadBack) {
  StreamEvent text{StreamEvent::Kind::kText, "g-2", 3, 17, "caf\u00e9", "", {}};
  auto back = decode_stream_event(encode(text));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->kind, StreamEvent::Kind::kText);
  EXPECT_EQ(back->attempt, 3u);
  EXPECT_EQ(back->sequence, 17u);
  EXPECT_EQ(back->text, "caf\u00e9");

  StreamEvent done{StreamEvent::Kind::kDone, "g-2", 1, 5, "", "", {}};
  done.completion.reason = engine::FinishReason::kError;
  done.completion.usage = {11, 4, 2};
  done.completion.error = {ErrorCode::kTooLarge, "the prompt is 9000 tokens", "messages", 0};
  back = decode_stream_event(encode(done));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->completion.reason, engine::FinishReason::kError);
  EXPECT_EQ(back->completion.usage.prompt_tokens, 11);
  EXPECT_EQ(back->completion.usage.completion_tokens, 4);
  EXPECT_EQ(back->completion.usage.cached_tokens, 2);
  EXPECT_EQ(back->completion.error.code, ErrorCode::kTooLarge);
  EXPECT_EQ(back->completion.error.param, "messages");

  StreamEvent started{StreamEvent::Kind::kStarted, "g-2", 2, 0, "", "engine-a", {}};
  back = decode_stream_event(encode(started));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->engine_id, "engine-a");
}

TEST(WireTest, ControlMessagesReadBack) {
  auto query = decode_progress_query(encode(ProgressQuery{"g-9", 2, "e"}));
  ASSERT_TRUE(query.ok());
  EXPECT_EQ(query->attempt, 2u);
  auto reply = decode_progress_reply(
      encode(ProgressReply{ProgressReply::State::kStreaming, 12, "twelve tokens"}));
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->state, ProgressReply::State::kStreaming);
  EXPECT_EQ(reply->delivered, 12u);
  EXPECT_EQ(reply->text, "twelve tokens");
  auto cancel = decode_cancel_order(encode(CancelOrder{"g-9", 3, true}));
  ASSERT_TRUE(cancel.ok());
  EXPECT_EQ(cancel->below_attempt, 3u);
  EXPECT_TRUE(cancel->give_back);
  EngineLoad load;
  load.engine_id = "e1";
  load.model.id = "tiny";
  load.model.meaningless_text = true;
  load.ready = true;
  load.slots = 4;
  load.held = 3;
  load.completion_rate = 2.5;
  auto back = decode_engine_load(encode(load));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->model.id, "tiny");
  EXPECT_TRUE(back->model.meaningless_text);
  EXPECT_EQ(back->held, 3);
  EXPECT_DOUBLE_EQ(back->completion_rate, 2.5);
}

TEST(WireTest, AnotherVersionIsRefusedByName) {
  auto order = decode_work_order(R"({"v":2,"kind":"work_order","id":"a","gateway":"g"})");
  ASSERT_FALSE(order.ok());
  EXPECT_EQ(order.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(order.error().message.find("wire version 2"), std::string::npos)
      << order.error().message;
  EXPECT_FALSE(decode_stream_event(R"({"kind":"text","seq":1})").ok());  // no version
  EXPECT_FALSE(decode_stream_event("not json").ok());
}

TEST(WireTest, WrongTypesAndMissingFieldsAreNamed) {
  auto event = decode_stream_event(R"({"v":1,"kind":"text","id":"a","attempt":1,"seq":"3"})");
  ASSERT_FALSE(event.ok());
  EXPECT_NE(event.error().message.find("\"seq\""), std::string::npos) << event.error().message;

  event = decode_stream_event(R"({"v":1,"kind":"text","id":"a","attempt":1})");
  ASSERT_FALSE(event.ok());  // a token without its number
  EXPECT_NE(event.error().message.find("seq"), std::string::npos);

  event = decode_stream_event(R"({"v":1,"kind":"shout","id":"a"})");
  ASSERT_FALSE(event.ok());
  EXPECT_NE(event.error().message.find("shout"), std::string::npos);

  auto order = decode_work_order(
      R"({"v":1,"kind":"work_order","id":"a","gateway":"g","request":{"priority":"urgent"}})");
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.error().message.find("urgent"), std::string::npos) << order.error().message;

  order = decode_work_order(
      R"({"v":1,"kind":"work_order","id":"a","gateway":"g","request":{"priority":"low",)"
      R"("messages":[{"role":"user","content":5}]}})");
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.error().message.find("content"), std::string::npos) << order.error().message;

  order = decode_work_order(R"({"v":1,"kind":"work_order","gateway":"g","request":{}})");
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.error().message.find("\"id\""), std::string::npos) << order.error().message;
}

// A number out of its field's range is refused by name, never converted or wrapped.
TEST(WireTest, NumbersOutOfTheirFieldsRangeAreRefusedByName) {
  const auto refused = [](const std::string& request) {
    auto order = decode_work_order(R"({"v":1,"kind":"work_order","id":"a","gateway":"g",)"
                                   R"("request":{"priority":"low",)" +
                                   request + "}}");
    return order.ok() ? std::string() : order.error().message;
  };
  EXPECT_NE(refused(R"("max_tokens":1e30)").find("\"max_tokens\""), std::string::npos);
  EXPECT_NE(refused(R"("max_tokens":2.5)").find("\"max_tokens\""), std::string::npos);
  EXPECT_NE(refused(R"("sampling":{"top_k":4294967296})").find("\"top_k\""), std::string::npos);
  EXPECT_NE(refused(R"("deadline_unix_ms":18446744073709551615)").find("deadline_unix_ms"),
            std::string::npos);
  EXPECT_EQ(refused(R"("max_tokens":64,"deadline_unix_ms":-5)"), "");  // passed: held at 1970
  auto load = decode_engine_load(R"({"v":1,"kind":"engine_load","engine":"e","slots":4,)"
                                 R"("completion_rate":1e999})");
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.error().message.find("completion_rate"), std::string::npos)
      << load.error().message;
}

}  // namespace
}  // namespace supportd::bus
