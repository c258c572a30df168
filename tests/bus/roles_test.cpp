// `supportd serve --role gateway` and `--role engine` as separate processes of the built binary,
// over a real nats-server with JetStream: a gateway streams an engine node's completion over
// HTTP; an engine node serves the probes only; an engine killed with SIGKILL mid-stream is
// replaced by another and the customer's stream holds every token exactly once (checked
// against the numbered token events on the wire); a conversation started through one gateway
// continues through another.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster_fixture.h"
#include "http_client.h"
#include "serve_process.h"
#include "test_model.h"

namespace supportd::bus::testing {
namespace {

namespace json = boost::json;
using supportd::testing::ServeProcess;

class RolesTest : public ClusterTest {
 protected:
  std::vector<std::string> engine_flags(const std::string& id) {
    return {"--role",        "engine", "--nats",     nats_->url(),
            "--node-id",     id,       "--model",    supportd::testing::synthesized_model(),
            "--threads",     "1",      "--parallel", "2",
            "--ack-wait-ms", "1000"};
  }
  std::vector<std::string> gateway_flags(const std::string& id) {
    return {"--role", "gateway",   "--nats", nats_->url(),    "--node-id",
            id,       "--encoder", "off",    "--ack-wait-ms", "1000"};
  }
};

// A streamed completion's text pieces (the "text" of each data event) and its finish reason.
struct Streamed {
  std::vector<std::string> pieces;
  std::string finish_reason;
};

Streamed stream_completion(std::uint16_t port, int max_tokens) {
  const json::object body{{"prompt", "my parcel is late"},
                          {"max_tokens", max_tokens},
                          {"temperature", 0},
                          {"ignore_eos", true},
                          {"stream", true}};
  const auto response =
      supportd::testing::http_request(port, "POST", "/v1/completions", json::serialize(body));
  EXPECT_EQ(response.status, 200) << response.body;
  Streamed streamed;
  for (const std::string& data : supportd::testing::sse_data(response.body)) {
    if (data == "[DONE]") continue;
    const json::value event = json::parse(data);
    const json::array& choices = event.at("choices").as_array();
    if (choices.empty()) continue;
    const json::object& choice = choices[0].as_object();
    const std::string text(choice.at("text").as_string());
    if (!text.empty()) streamed.pieces.push_back(text);
    if (choice.contains("finish_reason") && choice.at("finish_reason").is_string())
      streamed.finish_reason = std::string(choice.at("finish_reason").as_string());
  }
  return streamed;
}

// The text pieces of the customer's stream, joined, against the kept events' texts joined.
std::string joined(const std::vector<std::string>& pieces) {
  std::string text;
  for (const auto& piece : pieces)
    text += piece;
  return text;
}

TEST_F(RolesTest, AGatewayProcessStreamsAnEngineProcesssCompletion) {
  start_nats();
  ServeProcess engine(engine_flags("engine-a"));
  ServeProcess gateway(gateway_flags("gateway-a"));
  std::string why;
  ASSERT_TRUE(engine.wait_ready(why)) << why;
  ASSERT_TRUE(gateway.wait_ready(why)) << why;  // ready once it hears an engine

  const Streamed streamed = stream_completion(gateway.port(), 32);
  EXPECT_EQ(streamed.finish_reason, "length");
  EXPECT_FALSE(streamed.pieces.empty());

  // The engine node answers the probes only; its model is the gateway's.
  EXPECT_EQ(supportd::testing::http_request(engine.port(), "GET", "/health").status, 200);
  EXPECT_EQ(supportd::testing::http_request(engine.port(), "GET", "/metrics").status, 200);
  EXPECT_EQ(supportd::testing::http_request(engine.port(), "POST", "/v1/completions", "{}").status,
            404);
  const auto models = supportd::testing::http_request(gateway.port(), "GET", "/v1/models");
  ASSERT_EQ(models.status, 200) << models.body;
  const json::value parsed = json::parse(models.body);
  const json::array& listed = parsed.at("data").as_array();
  ASSERT_EQ(listed.size(), 1u) << models.body;
  EXPECT_FALSE(listed[0].at("id").as_string().empty());
}

TEST_F(RolesTest, AnEngineKilledMidStreamIsReplacedWithEveryTokenOnce) {
  start_nats();
  ServeProcess engine_a(engine_flags("engine-a"));
  ServeProcess engine_b(engine_flags("engine-b"));
  ServeProcess gateway(gateway_flags("gateway-a"));
  std::string why;
  ASSERT_TRUE(engine_a.wait_ready(why)) << why;
  ASSERT_TRUE(engine_b.wait_ready(why)) << why;
  ASSERT_TRUE(gateway.wait_ready(why)) << why;
  auto tap_connection = connect(nats_->url(), "tap");
  ASSERT_NE(tap_connection, nullptr);
  EventTap tap(*tap_connection, "gateway-a");

  constexpr int kTokens = 600;
  Streamed streamed;
  std::thread customer([&] { streamed = stream_completion(gateway.port(), kTokens); });
  // Whichever engine took the request is killed once 20 of its tokens are on the wire.
  std::string holder;
  const bool started = eventually([&] {
    int texts = 0;
    for (const StreamEvent& event : tap.events()) {
      if (event.kind == StreamEvent::Kind::kStarted) holder = event.engine_id;
      if (event.kind == StreamEvent::Kind::kText) ++texts;
    }
    return !holder.empty() && texts >= 20;
  });
  if (started) (holder == "engine-a" ? engine_a : engine_b).kill();
  customer.join();
  ASSERT_TRUE(started) << "no engine started the request";

  EXPECT_EQ(streamed.finish_reason, "length");
  // The customer's text is the numbered texts 1..last joined, each number's from the newest
  // attempt that sent it (the gateway drops what it has and what a superseded attempt sends):
  // nothing missing, nothing twice.
  EXPECT_TRUE(eventually([&] { return tap.saw_done(); }, std::chrono::seconds(10)));
  const auto events = tap.events();
  std::map<std::uint64_t, std::map<std::uint64_t, std::string>> by_attempt;  // attempt -> seq
  std::uint64_t last = 0;
  std::set<std::string> engines;
  for (const StreamEvent& event : events) {
    if (event.kind == StreamEvent::Kind::kStarted) engines.insert(event.engine_id);
    if (event.kind != StreamEvent::Kind::kText) continue;
    by_attempt[event.attempt][event.sequence] = event.text;
    last = std::max(last, event.sequence);
  }
  std::string expected;
  for (std::uint64_t sequence = 1; sequence <= last; ++sequence) {
    bool found = false;
    for (auto it = by_attempt.rbegin(); it != by_attempt.rend() && !found; ++it) {
      auto text = it->second.find(sequence);
      if (text == it->second.end()) continue;
      expected += text->second;
      found = true;
    }
    EXPECT_TRUE(found) << "token " << sequence << " never went on the wire";
  }
  EXPECT_EQ(joined(streamed.pieces), expected);
  EXPECT_EQ(by_attempt.size(), 2u) << "the request was resumed by a second attempt";
  EXPECT_EQ(engines.size(), 2u) << "on the other engine";
}

// The session store both gateways share (scripts/test.sh provides Redis and PostgreSQL).
std::vector<std::string> shared_sessions() {
  const char* redis = std::getenv("SUPPORTD_TEST_REDIS");
  const char* postgres = std::getenv("SUPPORTD_TEST_POSTGRES");
  if (redis == nullptr || postgres == nullptr) return {};
  return {"--redis",          redis,
          "--postgres",       postgres,
          "--session-secret", "roles-test-secret-of-at-least-32-bytes"};
}

// Both gateways run with the same --redis, --postgres and --session-secret: a session one
// created after the other started is found by the other (not refused as never issued), with
// its history and its handoff state.
TEST_F(RolesTest, AConversationStartedOnOneGatewayContinuesOnAnother) {
  const std::vector<std::string> sessions = shared_sessions();
  if (sessions.empty())
    GTEST_SKIP() << "SUPPORTD_TEST_REDIS and SUPPORTD_TEST_POSTGRES are not set";
  start_nats();
  ServeProcess engine(engine_flags("engine-a"));
  std::vector<std::string> flags_a = gateway_flags("gateway-a");
  std::vector<std::string> flags_b = gateway_flags("gateway-b");
  flags_a.insert(flags_a.end(), sessions.begin(), sessions.end());
  flags_b.insert(flags_b.end(), sessions.begin(), sessions.end());
  ServeProcess gateway_a(flags_a);
  ServeProcess gateway_b(flags_b);
  std::string why;
  ASSERT_TRUE(engine.wait_ready(why)) << why;
  ASSERT_TRUE(gateway_a.wait_ready(why)) << why;
  ASSERT_TRUE(gateway_b.wait_ready(why)) << why;

  using supportd::testing::http_request;
  const auto started = http_request(gateway_a.port(), "POST", "/v1/sessions", "{}");
  ASSERT_EQ(started.status, 201) << started.body;
  const std::string session(json::parse(started.body).at("session").as_string());
  const std::string path = "/v1/sessions/" + session + "/messages";
  const auto first =
      http_request(gateway_a.port(), "POST", path, R"({"text": "Where is my parcel?"})");
  ASSERT_EQ(first.status, 200) << first.body;
  const auto second = http_request(gateway_b.port(), "POST", path,
                                   R"({"text": "And can I change the delivery address?"})");
  ASSERT_EQ(second.status, 200) << second.body;
  // Either gateway shows the whole conversation, both turns.
  for (std::uint16_t port : {gateway_a.port(), gateway_b.port()}) {
    const auto history = http_request(port, "GET", path);
    ASSERT_EQ(history.status, 200) << history.body;
    EXPECT_NE(history.body.find("Where is my parcel?"), std::string::npos) << history.body;
    EXPECT_NE(history.body.find("change the delivery address"), std::string::npos) << history.body;
  }
  // The handoff asked for on B is what A sees.
  ASSERT_EQ(http_request(gateway_b.port(), "POST", "/v1/sessions/" + session + "/handoff").status,
            200);
  const auto on_a = http_request(gateway_a.port(), "GET", "/v1/agent/conversations/" + session);
  ASSERT_EQ(on_a.status, 200) << on_a.body;
  EXPECT_NE(on_a.body.find("\"waiting\""), std::string::npos) << on_a.body;
}

}  // namespace
}  // namespace supportd::bus::testing
