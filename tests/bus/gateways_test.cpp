// Two `supportd serve --role gateway` processes in front of one engine node, sharing Redis and
// PostgreSQL (from scripts/services.sh) and NATS: what one gateway does is what the other sees.
// An agent on gateway B reaches a customer whose WebSocket is on gateway A (and the other way
// round), an API key's rate limit is one limit across both, and an answer generated through A
// is a cache hit through B.
#include <gtest/gtest.h>

#include <unistd.h>
#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cluster_fixture.h"
#include "demo_questions.h"
#include "http_client.h"
#include "serve_process.h"
#include "test_model.h"
#include "websocket_client.h"

namespace supportd::bus::testing {
namespace {

namespace json = boost::json;
using supportd::testing::http_request;
using supportd::testing::ServeProcess;
using supportd::testing::WebSocketClient;

std::string type_of(const json::value& message) {
  return std::string(message.at("type").as_string());
}

class GatewaysTest : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    if (IsSkipped()) return;
    const char* redis = std::getenv("SUPPORTD_TEST_REDIS");
    const char* postgres = std::getenv("SUPPORTD_TEST_POSTGRES");
    if (redis == nullptr || postgres == nullptr)
      GTEST_SKIP() << "SUPPORTD_TEST_REDIS and SUPPORTD_TEST_POSTGRES are not set";
    shared_ = {"--redis",          redis,
               "--postgres",       postgres,
               "--session-secret", "gateways-test-secret-of-at-least-32-bytes"};
  }

  // NATS, one engine node and gateways A and B, each with the shared stores and `extra`.
  void start_cluster(const std::vector<std::string>& extra = {}) {
    start_nats();
    engine_ = std::make_unique<ServeProcess>(std::vector<std::string>{
        "--role", "engine", "--nats", nats_->url(), "--node-id", "engine-a", "--model",
        supportd::testing::synthesized_model(), "--threads", "1", "--parallel", "2"});
    for (const char* id : {"gateway-a", "gateway-b"}) {
      std::vector<std::string> flags = {"--role",    "gateway", "--nats",    nats_->url(),
                                        "--node-id", id,        "--encoder", "off"};
      flags.insert(flags.end(), shared_.begin(), shared_.end());
      flags.insert(flags.end(), extra.begin(), extra.end());
      gateway_processes_.push_back(std::make_unique<ServeProcess>(flags));
    }
    std::string why;
    ASSERT_TRUE(engine_->wait_ready(why)) << why;
    for (auto& gateway : gateway_processes_)
      ASSERT_TRUE(gateway->wait_ready(why)) << why;
  }

  std::uint16_t a() const { return gateway_processes_[0]->port(); }
  std::uint16_t b() const { return gateway_processes_[1]->port(); }

  void TearDown() override {
    gateway_processes_.clear();
    engine_.reset();
    ClusterTest::TearDown();
  }

  std::vector<std::string> shared_;
  std::unique_ptr<ServeProcess> engine_;
  std::vector<std::unique_ptr<ServeProcess>> gateway_processes_;
};

// Pushes until one of `type` arrives; the waiting list may come any number of times between.
json::value next_of(WebSocketClient& socket, const std::string& type) {
  for (int i = 0; i < 50; ++i) {
    json::value message = socket.receive();
    if (type_of(message) == type) return message;
  }
  ADD_FAILURE() << "no '" << type << "' among 50 pushes";
  return {};
}

TEST_F(GatewaysTest, AnAgentOnOneGatewayTalksWithACustomerConnectedToAnother) {
  start_cluster();
  if (HasFatalFailure()) return;
  const auto started = http_request(a(), "POST", "/v1/sessions", "{}");
  ASSERT_EQ(started.status, 201) << started.body;
  const std::string session(json::parse(started.body).at("session").as_string());

  WebSocketClient agents(b(), "/v1/agent/ws");                 // the agent: on B
  WebSocketClient customer(a(), "/v1/ws?session=" + session);  // the customer: on A
  customer.send(R"({"type":"message","text":"I want to talk to a human please"})");
  const auto answer = customer.receive_until("done");
  ASSERT_EQ(answer.back().at("answer").at("source"), json::value("handoff"));

  // B's agents hear of the conversation waiting on A.
  bool listed = false;
  for (int i = 0; i < 20 && !listed; ++i) {
    const json::value waiting = next_of(agents, "waiting");
    if (!waiting.is_object()) break;
    for (const auto& c : waiting.at("conversations").as_array())
      listed = listed || c.at("session") == json::value(session);
  }
  EXPECT_TRUE(listed) << "the waiting list on B never showed the conversation";

  const std::string base = "/v1/agent/conversations/" + session;
  ASSERT_EQ(http_request(b(), "POST", base + "/take", R"({"agent":"bob"})").status, 200);
  ASSERT_EQ(http_request(b(), "POST", base + "/reply", R"({"agent":"bob","text":"Hi, Bob here."})")
                .status,
            200);
  // The customer's socket on A is told a person joined, then gets Bob's words.
  const json::value joined = next_of(customer, "handoff");
  EXPECT_EQ(joined.at("state"), json::value("taken")) << json::serialize(joined);
  const json::value said = next_of(customer, "agent_message");
  ASSERT_TRUE(said.is_object());
  EXPECT_EQ(said.at("text"), json::value("Hi, Bob here."));

  // And the customer's answer, sent on A, reaches the agent's socket on B.
  customer.send(R"({"type":"message","text":"Thanks Bob, my parcel is blue"})");
  const json::value heard = next_of(agents, "customer_message");
  ASSERT_TRUE(heard.is_object());
  EXPECT_EQ(heard.at("session"), json::value(session)) << json::serialize(heard);
  EXPECT_NE(json::serialize(heard).find("my parcel is blue"), std::string::npos)
      << json::serialize(heard);
}

TEST_F(GatewaysTest, AnApiKeysRateLimitIsOneLimitAcrossGateways) {
  // A key of its own for this run: the buckets in the shared Redis outlive a test.
  const std::string key =
      "sk-gateways-" + std::to_string(::getpid()) + "-" +
      std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  const std::filesystem::path config = std::filesystem::temp_directory_path() /
                                       ("supportd-gateways-keys-" + std::to_string(::getpid()));
  {
    std::ofstream file(config);
    // Three requests, then one more every 1000 s: nothing refills during the test.
    file << "[[api_keys]]\nkey = \"" << key
         << "\"\ntenant = \"shop\"\nrequests_per_second = 0.001\nburst = 3\n";
  }
  start_cluster({"--config", config.string()});
  std::filesystem::remove(config);
  if (HasFatalFailure()) return;

  const std::string body = R"({"prompt":"hello","max_tokens":1})";
  const std::vector<std::pair<std::string, std::string>> headers = {
      {"Authorization", "Bearer " + key}};
  int allowed = 0;
  int limited = 0;
  for (int i = 0; i < 6; ++i) {
    const auto response =
        http_request(i % 2 == 0 ? a() : b(), "POST", "/v1/completions", body, headers);
    if (response.status == 200) ++allowed;
    if (response.status == 429) {
      ++limited;
      EXPECT_FALSE(response.header("retry-after").empty());
    }
  }
  // One bucket of three for the key, not three per gateway.
  EXPECT_EQ(allowed, 3);
  EXPECT_EQ(limited, 3);
}

TEST_F(GatewaysTest, AnAnswerGeneratedThroughOneGatewayIsACacheHitThroughAnother) {
  start_cluster({"--show-synthesized-text", "--answer-max-tokens", "8"});
  if (HasFatalFailure()) return;
  // No FAQ answers this; a question of its own per run, since the shared cache outlives a test.
  const std::string question =
      supportd::testing::uncovered_question("friend " + std::to_string(::getpid()));
  auto ask = [&](std::uint16_t port) {
    const auto r = http_request(port, "POST", "/v1/answer",
                                json::serialize(json::object{{"question", question}}));
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? json::parse(r.body) : json::value();
  };
  const json::value first = ask(a());
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first.at("source"), json::value("model")) << json::serialize(first);
  const json::value again = ask(b());
  ASSERT_TRUE(again.is_object());
  EXPECT_EQ(again.at("source"), json::value("cache")) << json::serialize(again);
  EXPECT_EQ(again.at("text"), first.at("text"));
}

}  // namespace
}  // namespace supportd::bus::testing
