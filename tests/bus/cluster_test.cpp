// The cluster path in one process (real nats-server, real engines on the tiny model, separate
// connections): a request through a gateway gives the engine's own answer, priority holds across
// engines, cancellation reaches the engine, an engine leaving hands its streams to another
// without a gap or a repeat, and what cannot go on ends with an error.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "cluster_fixture.h"
#include "collect_sink.h"

namespace supportd::bus::testing {
namespace {

using supportd::testing::CollectSink;

TEST_F(ClusterTest, AGatewayGivesTheEnginesOwnAnswer) {
  start_nats();
  EngineNode& node = add_engine(2, "engine-a");
  auto& gateway = add_gateway("gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 1));
  EXPECT_EQ(gateway.model().id, node.engine->model().id);

  auto local = std::make_shared<CollectSink>();
  ASSERT_TRUE(node.engine->submit(greedy("the parcel is late", 24), local).ok());
  ASSERT_TRUE(local->wait());
  auto remote = std::make_shared<CollectSink>();
  ASSERT_TRUE(gateway.submit(greedy("the parcel is late", 24), remote).ok());
  ASSERT_TRUE(remote->wait());
  EXPECT_EQ(remote->completion().reason, engine::FinishReason::kLength);
  EXPECT_EQ(remote->text(), local->text());
  EXPECT_EQ(remote->pieces(), local->pieces());
  EXPECT_EQ(remote->completion().usage.completion_tokens, 24);
  EXPECT_EQ(remote->completion().usage.prompt_tokens, local->completion().usage.prompt_tokens);
  EXPECT_GE(remote->completion().timings.first_token_ms, 0);
  EXPECT_TRUE(eventually([&] { return node.worker->stats().finished == 1; }));
}

TEST_F(ClusterTest, EngineErrorsReachTheCustomerAsTheEnd) {
  start_nats();
  add_engine(1, "engine-a");
  auto& gateway = add_gateway("gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 1));
  auto sink = std::make_shared<CollectSink>();
  // More tokens than the engine's context holds: the gateway cannot know, the engine refuses.
  std::string prompt;
  for (int i = 0; i < 20000; ++i)
    prompt += " parcel";
  ASSERT_TRUE(gateway.submit(greedy(prompt, 4), sink).ok());
  ASSERT_TRUE(sink->wait());
  EXPECT_EQ(sink->completion().reason, engine::FinishReason::kError);
  EXPECT_EQ(sink->completion().error.code, ErrorCode::kTooLarge);
  EXPECT_NE(sink->completion().error.message.find("context holds"), std::string::npos)
      << sink->completion().error.message;
}

TEST_F(ClusterTest, PriorityHoldsAcrossEngines) {
  start_nats();
  add_engine(1, "engine-a");
  add_engine(1, "engine-b");
  auto& gateway = add_gateway("gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 2));
  // Both engines busy until a blocker is cancelled, so one slot frees while all three classes
  // wait in the queue.
  const Streaming first = keep_busy(gateway, "one");
  ASSERT_NE(first.id, 0u);
  const Streaming second = keep_busy(gateway, "two");
  ASSERT_NE(second.id, 0u);
  // Then low, normal, high, in that order of arrival.
  std::map<std::string, std::shared_ptr<CollectSink>> sinks;
  for (auto priority : {sched::Priority::kLow, sched::Priority::kNormal, sched::Priority::kHigh}) {
    auto request = greedy("three", 40);
    request.priority = priority;
    auto sink = std::make_shared<CollectSink>();
    ASSERT_TRUE(gateway.submit(request, sink).ok());
    sinks[sched::priority_name(priority)] = sink;
  }
  ASSERT_TRUE(eventually([&] { return gateway.stats().waiting == 3; }));
  gateway.cancel(first.id);
  for (auto& [name, sink] : sinks)
    ASSERT_TRUE(sink->wait()) << name;
  // One slot served them one at a time: the high class first, then normal, then low.
  const double high = sinks["high"]->completion().timings.queued_ms;
  const double normal = sinks["normal"]->completion().timings.queued_ms;
  const double low = sinks["low"]->completion().timings.queued_ms;
  EXPECT_LT(high, normal);
  EXPECT_LT(normal, low);
  gateway.cancel(second.id);
}

TEST_F(ClusterTest, CancellingReachesTheEngineHoldingTheRequest) {
  start_nats();
  EngineNode& node = add_engine(1, "engine-a");
  auto& gateway = add_gateway("gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 1));
  const Streaming streaming = keep_busy(gateway, "a long answer", 3);
  ASSERT_NE(streaming.id, 0u);
  gateway.cancel(streaming.id);
  ASSERT_TRUE(streaming.sink->wait());
  EXPECT_EQ(streaming.sink->completion().reason, engine::FinishReason::kCancelled);
  // The engine drops it and acknowledges: nothing is held, nothing runs.
  EXPECT_TRUE(eventually([&] { return node.worker->stats().held == 0; }));
  EXPECT_TRUE(eventually([&] { return node.engine->stats().running == 0; }));
  EXPECT_EQ(node.worker->stats().given_back, 0);
}

TEST_F(ClusterTest, ARequestCancelledWhileQueuedNeverRuns) {
  start_nats();
  EngineNode& node = add_engine(1, "engine-a");
  auto& gateway = add_gateway("gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 1));
  const Streaming blocker = keep_busy(gateway, "busy");
  ASSERT_NE(blocker.id, 0u);
  auto queued = std::make_shared<CollectSink>();
  auto queued_id = gateway.submit(greedy("waiting", 8), queued);
  ASSERT_TRUE(queued_id.ok());
  gateway.cancel(*queued_id);
  ASSERT_TRUE(queued->wait());
  EXPECT_EQ(queued->completion().reason, engine::FinishReason::kCancelled);
  gateway.cancel(blocker.id);
  ASSERT_TRUE(blocker.sink->wait());
  // A later request runs; the cancelled one was never taken.
  auto after = std::make_shared<CollectSink>();
  ASSERT_TRUE(gateway.submit(greedy("after", 4), after).ok());
  ASSERT_TRUE(after->wait());
  EXPECT_EQ(node.worker->stats().taken, 2);
  EXPECT_TRUE(queued->pieces().empty());
}

TEST_F(ClusterTest, AnEngineLeavingMidStreamHandsItOnWithNoGapNoRepeat) {
  start_nats();
  EngineNode& a = add_engine(1, "engine-a");
  EngineNode& b = add_engine(1, "engine-b");
  auto& gateway = add_gateway("gateway-a");
  EventTap tap(*gateway_connections_.back(), "gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 2));
  constexpr int kTokens = 2000;
  auto sink = std::make_shared<CollectSink>();
  ASSERT_TRUE(gateway.submit(greedy("hand it over", kTokens), sink).ok());
  ASSERT_TRUE(sink->wait_pieces(20));
  // Whichever engine holds it leaves, handing it back to the queue; the other resumes it.
  const bool a_holds = a.worker->stats().held == 1;
  EngineNode& first = a_holds ? a : b;
  EngineNode& second = a_holds ? b : a;
  first.worker->stop(std::chrono::milliseconds(0));
  ASSERT_TRUE(sink->wait());
  EXPECT_EQ(sink->completion().reason, engine::FinishReason::kLength)
      << sink->completion().error.message;
  const auto pieces = sink->pieces();
  EXPECT_TRUE(eventually([&] { return tap.saw_done("gateway-a-1"); }, std::chrono::seconds(10)));
  const auto used = check_no_gap_no_repeat(pieces, tap.events(), "gateway-a-1");
  EXPECT_EQ(used.size(), 2u) << "both attempts contributed";
  EXPECT_EQ(second.worker->stats().resumed, 1);
  EXPECT_EQ(first.worker->stats().given_back, 1);
  EXPECT_EQ(gateway.remote_stats().resumed, 1);
  // max_tokens counts the whole answer, both engines' parts.
  EXPECT_EQ(sink->completion().usage.completion_tokens, kTokens);
}

TEST_F(ClusterTest, WithNoEngineLeftAStreamEndsWithAnError) {
  start_nats();
  EngineNode& node = add_engine(1, "engine-a");
  auto& gateway = add_gateway("gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 1));
  auto sink = std::make_shared<CollectSink>();
  ASSERT_TRUE(gateway.submit(greedy("alone", 100000), sink).ok());
  ASSERT_TRUE(sink->wait_pieces(2));
  node.worker->stop(std::chrono::milliseconds(0));
  ASSERT_TRUE(sink->wait(std::chrono::seconds(30)));
  EXPECT_EQ(sink->completion().reason, engine::FinishReason::kError);
  EXPECT_EQ(sink->completion().error.code, ErrorCode::kUnavailable);
  EXPECT_NE(sink->completion().error.message.find("no engine is left"), std::string::npos)
      << sink->completion().error.message;
  // And new requests are refused with Retry-After instead of waiting for nobody.
  auto refused = gateway.submit(greedy("anyone?", 4), std::make_shared<CollectSink>());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
  EXPECT_GE(refused.error().retry_after_s, 1);
}

TEST_F(ClusterTest, ADeadlinePassingInTheQueueEndsTheRequest) {
  start_nats();
  add_engine(1, "engine-a");
  auto& gateway = add_gateway("gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 1));
  const Streaming blocker = keep_busy(gateway, "busy");
  ASSERT_NE(blocker.id, 0u);
  auto request = greedy("in a hurry", 4);
  request.deadline = engine::Clock::now() + std::chrono::milliseconds(300);
  auto sink = std::make_shared<CollectSink>();
  ASSERT_TRUE(gateway.submit(request, sink).ok());  // the rate is unknown yet: accepted
  ASSERT_TRUE(sink->wait(std::chrono::seconds(10)));
  EXPECT_EQ(sink->completion().reason, engine::FinishReason::kDeadline);
  EXPECT_EQ(sink->completion().error.code, ErrorCode::kDeadline);
  gateway.cancel(blocker.id);
}

TEST_F(ClusterTest, ARequestLargerThanTheServersPayloadLimitTravelsInChunks) {
  start_nats(/*max_payload=*/8192);
  EngineNode& node = add_engine(1, "engine-a");
  auto& gateway = add_gateway("gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 1));
  std::string prompt;
  while (prompt.size() < 20000)
    prompt += "my parcel number " + std::to_string(prompt.size()) + " is late. ";
  auto local = std::make_shared<CollectSink>();
  ASSERT_TRUE(node.engine->submit(greedy(prompt, 8), local).ok());
  ASSERT_TRUE(local->wait());
  auto remote = std::make_shared<CollectSink>();
  ASSERT_TRUE(gateway.submit(greedy(prompt, 8), remote).ok());
  ASSERT_TRUE(remote->wait());
  EXPECT_EQ(remote->completion().reason, engine::FinishReason::kLength)
      << remote->completion().error.message;
  EXPECT_EQ(remote->completion().usage.prompt_tokens, local->completion().usage.prompt_tokens);
  EXPECT_EQ(remote->text(), local->text());
}

TEST_F(ClusterTest, WhileNatsIsAwayGatewaysRefuseWithRetryAfterAndRecoverByThemselves) {
  start_nats();
  add_engine(1, "engine-a");
  auto& gateway = add_gateway("gateway-a");
  ASSERT_TRUE(sees_engines(gateway, 1));
  nats_->kill();
  ASSERT_TRUE(eventually([&] { return !gateway.ready(); }));
  auto refused = gateway.submit(greedy("anyone?", 4), std::make_shared<CollectSink>());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
  EXPECT_GE(refused.error().retry_after_s, 1);
  ASSERT_TRUE(nats_->start());  // same port and store
  ASSERT_TRUE(eventually([&] { return gateway.ready(); }));
  auto sink = std::make_shared<CollectSink>();
  ASSERT_TRUE(eventually([&] {
    auto attempt = std::make_shared<CollectSink>();
    if (!gateway.submit(greedy("back again", 6), attempt).ok()) return false;
    sink = attempt;
    return true;
  }));
  ASSERT_TRUE(sink->wait());
  EXPECT_EQ(sink->completion().reason, engine::FinishReason::kLength)
      << sink->completion().error.message;
  EXPECT_EQ(sink->completion().usage.completion_tokens, 6);
}

}  // namespace
}  // namespace supportd::bus::testing
