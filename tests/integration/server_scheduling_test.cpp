// Admission control through HTTP: 429/503 with Retry-After, API keys and rate limits, a
// cancelled request freeing its slot, and /metrics valid under promtool.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <thread>

#include "api/access.h"
#include "api/routes.h"
#include "api/serving_metrics.h"
#include "engine/llama/llama_engine.h"
#include "http/server.h"
#include "http_client.h"
#include "obs/metrics.h"
#include "test_model.h"
#include "test_paths.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::Connection;
using testing::http_request;

// supportd with one sequence slot, small queues and two API keys.
class SchedulingServer : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::llama::EngineOptions options;
    options.model_path = testing::synthesized_model();
    options.threads = 0;
    options.context_cells = 65536;
    options.parallel = 1;
    options.warmup = false;
    options.preemption = engine::llama::EngineOptions::Preemption::kOff;
    options.admission.queue_limit = {0, 1, 0};
    auto created = engine::llama::LlamaEngine::create(options);
    ASSERT_TRUE(created.ok());
    engine_ = std::move(created).value();
    // One request per 20 s: the second of two back-to-back requests is refused however long
    // the first takes on a loaded machine.
    api::ApiKey limited{
        api::KeyDigest::of("key-limited"), "acme", sched::Priority::kNormal, 1.0, {0.05, 1.0, 0}};
    api::ApiKey vip{api::KeyDigest::of("key-vip"), "vip", sched::Priority::kHigh, 2.0, {}};
    access_ = std::make_unique<api::Access>(std::vector<api::ApiKey>{limited, vip});
    metrics_ = std::make_unique<api::ServingMetrics>(registry_, *engine_);
    services_ = std::make_unique<api::Services>(
        api::Services{engine_.get(), access_.get(), metrics_.get()});
    router_ = std::make_unique<http::Router>(api::make_router(*services_));
    http::ServerOptions server_options;
    server_options.port = 0;
    server_ = std::make_unique<http::Server>(
        server_options, [this](http::Request& r) { return router_->dispatch(r); });
    ASSERT_TRUE(server_->start().ok());
  }
  void TearDown() override {
    server_->stop();
    engine_->shutdown();
  }

  static std::string body(int max_tokens, bool stream, const std::string& extra = "") {
    return R"({"messages":[{"role":"user","content":"hello"}],"ignore_eos":true,"temperature":0,"max_tokens":)" +
           std::to_string(max_tokens) + (stream ? R"(,"stream":true)" : "") + extra + "}";
  }
  testing::HttpResult post(const std::string& key, const std::string& b,
                           std::vector<std::pair<std::string, std::string>> headers = {}) {
    headers.emplace_back("Authorization", "Bearer " + key);
    return http_request(server_->port(), "POST", "/v1/chat/completions", b, headers);
  }
  // Opens a long streaming request and keeps it running; returns the connection.
  std::unique_ptr<Connection> occupy(const std::string& key) {
    auto c = std::make_unique<Connection>(server_->port());
    const std::string b = body(100000, true);
    c->send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key +
            "\r\nContent-Length: " + std::to_string(b.size()) + "\r\n\r\n" + b);
    std::string seen;
    for (int i = 0; i < 300 && seen.find("data: ") == std::string::npos; ++i) {
      seen += c->read_some(std::chrono::milliseconds(100));
    }
    EXPECT_NE(seen.find("data: "), std::string::npos);
    return c;
  }
  void wait_running(int n) {
    for (int i = 0; i < 500 && engine_->stats().running != n; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  static std::string error_code(const testing::HttpResult& r) {
    boost::system::error_code ec;
    const auto v = json::parse(r.body, ec);
    if (ec || !v.is_object() || !v.as_object().contains("error"))
      return "(no error body: " + r.body + ")";
    const auto& code = v.at("error").at("code");
    return code.is_string() ? std::string(code.as_string()) : "(null)";
  }

  obs::Registry registry_;
  std::unique_ptr<engine::llama::LlamaEngine> engine_;
  std::unique_ptr<api::Access> access_;
  std::unique_ptr<api::ServingMetrics> metrics_;
  std::unique_ptr<api::Services> services_;
  std::unique_ptr<http::Router> router_;
  std::unique_ptr<http::Server> server_;
};

TEST_F(SchedulingServer, KeysAreRequiredAndChecked) {
  EXPECT_EQ(http_request(server_->port(), "POST", "/v1/chat/completions", body(2, false)).status,
            401);
  const auto wrong = post("nope", body(2, false));
  EXPECT_EQ(wrong.status, 401);
  EXPECT_EQ(error_code(wrong), "invalid_api_key");
  EXPECT_EQ(wrong.header("www-authenticate"), "Bearer realm=\"supportd\"");
  EXPECT_EQ(post("key-vip", body(2, false)).status, 200);
  // The scheme's name is case-insensitive (RFC 9110 11.1).
  EXPECT_EQ(http_request(server_->port(), "POST", "/v1/chat/completions", body(2, false),
                         {{"Authorization", "bearer key-vip"}})
                .status,
            200);
}

TEST_F(SchedulingServer, RateLimitsAnswer429WithRetryAfter) {
  EXPECT_EQ(post("key-limited", body(2, false)).status, 200);
  const auto limited = post("key-limited", body(2, false));
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(error_code(limited), "rate_limit_exceeded");
  EXPECT_GE(std::atoi(limited.header("retry-after").c_str()), 1);
  EXPECT_EQ(post("key-vip", body(2, false)).status, 200);  // other keys are unaffected
}

TEST_F(SchedulingServer, AFullQueueAnswers429AndAnUnreachableDeadline503) {
  auto running = occupy("key-vip");
  wait_running(1);
  // The normal queue holds one request: it waits...
  std::thread waiter(
      [&] { EXPECT_EQ(post("key-vip", body(2, false, R"(,"priority":"normal")")).status, 200); });
  for (int i = 0; i < 2000 && engine_->stats().waiting_by_priority[1] == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(engine_->stats().waiting_by_priority[1], 1);
  // ...and the next normal one finds the queue full.
  const auto full = post("key-vip", body(2, false), {{"X-Priority", "normal"}});
  EXPECT_EQ(full.status, 429);
  EXPECT_EQ(error_code(full), "queue_full");
  EXPECT_GE(std::atoi(full.header("retry-after").c_str()), 1);
  // A high request with a timeout the running request will not free a slot for: 503 at once.
  const auto late = post("key-vip", body(2, true, R"(,"priority":"high","timeout":0.3)"));
  EXPECT_EQ(late.status, 503);
  EXPECT_EQ(error_code(late), "deadline_exceeded");
  EXPECT_GE(std::atoi(late.header("retry-after").c_str()), 1);
  EXPECT_EQ(post("key-vip", body(2, false), {{"X-Priority", "bogus"}}).status, 400);
  // X-Timeout follows the body's rule: decimal seconds from 0.001 to 86400.
  for (const char* timeout : {"0.0001", "1e-9", "0x10", "inf", "nan", "86401", "-1", "+5"}) {
    const auto bad = post("key-vip", body(2, false), {{"X-Timeout", timeout}});
    EXPECT_EQ(bad.status, 400) << timeout << ": " << bad.body;
    EXPECT_NE(bad.body.find("between 0.001 and 86400"), std::string::npos) << bad.body;
  }
  running.reset();  // the client hangs up: its slot goes to the waiter
  waiter.join();
}

TEST_F(SchedulingServer, ACancelledRequestFreesItsSlot) {
  {
    auto running = occupy("key-vip");
    wait_running(1);
  }  // the client hangs up
  const auto next = post("key-vip", body(4, false));
  EXPECT_EQ(next.status, 200);
  wait_running(0);
  EXPECT_EQ(engine_->sequences_holding_cells(), 0);
}

TEST_F(SchedulingServer, MetricsPassPromtoolAndCountOutcomes) {
  ASSERT_EQ(post("key-vip", body(3, true)).status, 200);
  ASSERT_EQ(post("key-limited", body(3, false)).status, 200);
  EXPECT_EQ(post("key-limited", body(3, false)).status, 429);
  const auto metrics = http_request(server_->port(), "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find(
                "supportd_requests_total{outcome=\"ok\",priority=\"high\",tenant=\"vip\"} 1"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("supportd_requests_total{outcome=\"rate_limited\",priority="
                              "\"normal\",tenant=\"acme\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("supportd_time_to_first_token_seconds_bucket"), std::string::npos);
  EXPECT_NE(metrics.body.find("process_resident_memory_bytes"), std::string::npos);
  // Two requests were computed: the engine was busy for some time.
  const auto busy_at = metrics.body.find("\nsupportd_engine_busy_seconds_total ");
  ASSERT_NE(busy_at, std::string::npos) << metrics.body;
  const double busy = std::strtod(
      metrics.body.c_str() + busy_at + std::string("\nsupportd_engine_busy_seconds_total ").size(),
      nullptr);
  EXPECT_GT(busy, 0.0);

  const std::string file =
      testing::test_data_dir() + "/metrics-" + std::to_string(getpid()) + ".txt";
  std::ofstream(file) << metrics.body;
  const std::string command = "promtool check metrics < " + file + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[512];
  while (fgets(buffer, sizeof(buffer), pipe))
    output += buffer;
  const int status = pclose(pipe);
  std::remove(file.c_str());
  EXPECT_EQ(status, 0) << "promtool: " << output;

  const auto stats = http_request(server_->port(), "GET", "/v1/stats");
  ASSERT_EQ(stats.status, 200);
  const auto doc = json::parse(stats.body);
  EXPECT_EQ(doc.at("classes").at("high").at("time_to_first_token").at("count"), json::value(1));
  EXPECT_EQ(doc.at("classes").at("normal").at("outcomes").at("rate_limited"), json::value(1));
  EXPECT_FALSE(doc.as_object().contains("desk"));  // served without the desk
}

}  // namespace
}  // namespace supportd
