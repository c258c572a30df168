// The admin routes and fault injection in the server, in process, on an ephemeral port, with
// the synthesized model: without a key /admin answers 404 (and never carries CORS headers);
// with one, 401 for a missing or wrong key; POST /admin/faults refuses bad input naming the
// field; an abort on the queue stage answers its status, counted in /metrics; a decode delay
// reaches the engine and is marked in the request's trace (GET /v1/traces: the stage
// "fault decode"); a decode throttle bound to a class spaces that class's tokens and only
// its; the kill switch disarms everything; a shed class is refused with 503 until served
// again.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <optional>
#include <thread>

#include "api/load_shedding.h"
#include "api/routes.h"
#include "api/serving_metrics.h"
#include "engine/llama/llama_engine.h"
#include "http/server.h"
#include "http_client.h"
#include "obs/faults/fault_injector.h"
#include "obs/metrics.h"
#include "obs/trace/tracer.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::http_request;
using testing::HttpResult;

const std::string kKey = "drill-admin-key-0123456789";
using Headers = std::vector<std::pair<std::string, std::string>>;
const Headers kAdmin = {{"Authorization", "Bearer " + kKey}, {"Content-Type", "application/json"}};

class AdminFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::llama::EngineOptions options;
    options.model_path = testing::synthesized_model();
    options.threads = 0;
    options.parallel = 2;
    auto created = engine::llama::LlamaEngine::create(options);
    ASSERT_TRUE(created.ok()) << created.error().message;
    engine_ = std::move(created).value();
    obs::trace::TracerOptions tracing;
    tracing.slow_ms = 1;  // every request is kept: the test reads its trace
    tracer_.emplace(std::move(tracing), &registry_);
    injector_.emplace(obs::faults::FaultLimits{}, &registry_);
    services_.engine = engine_.get();
    services_.tracer = &*tracer_;
    metrics_.emplace(registry_, *engine_);
    services_.metrics = &*metrics_;
  }
  // Starts the server with the services as the test left them.
  void start() {
    router_.emplace(api::make_router(services_));
    http::ServerOptions server_options;
    server_options.port = 0;
    server_options.threads = 2;
    server_.emplace(api::serve_routes_with(services_, server_options),
                    [this](http::Request& r) { return router_->dispatch(r); });
    ASSERT_TRUE(server_->start().ok());
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (engine_) engine_->shutdown();
  }
  void use_key_and_faults() {
    services_.admin_key = api::AdminKey::of(kKey);
    services_.faults = &*injector_;
    services_.shedding = &shedding_;
  }
  HttpResult admin(const std::string& method, const std::string& target,
                   const std::string& body = {}) {
    return http_request(server_->port(), method, target, body, kAdmin);
  }
  HttpResult complete(int max_tokens) {
    return http_request(server_->port(), "POST", "/v1/completions",
                        R"({"prompt":"Where is my parcel?","max_tokens":)" +
                            std::to_string(max_tokens) + R"(,"ignore_eos":true})",
                        {{"Content-Type", "application/json"}});
  }
  // The 400's param for a POST /admin/faults body.
  std::string refused_field(const std::string& body) {
    const HttpResult reply = admin("POST", "/admin/faults", body);
    EXPECT_EQ(reply.status, 400) << body << " -> " << reply.body;
    if (reply.status != 400) return {};
    const json::value error = json::parse(reply.body).at("error");
    const json::value& param = error.at("param");
    return param.is_string() ? std::string(param.as_string()) : std::string();
  }

  obs::Registry registry_;
  std::unique_ptr<engine::llama::LlamaEngine> engine_;
  std::optional<api::ServingMetrics> metrics_;
  std::optional<obs::trace::Tracer> tracer_;
  std::optional<obs::faults::FaultInjector> injector_;
  api::LoadShedding shedding_;
  api::Services services_;
  std::optional<http::Router> router_;
  std::optional<http::Server> server_;
};

TEST_F(AdminFaultsTest, WithoutAnAdminKeyAdminRoutesDoNotExistAndCarryNoCorsHeaders) {
  services_.faults = &*injector_;
  start();
  for (const char* method : {"GET", "POST", "DELETE"}) {
    const HttpResult reply =
        http_request(server_->port(), method, "/admin/faults", "{}",
                     {{"Authorization", "Bearer " + kKey}, {"Origin", "https://shop.example"}});
    EXPECT_EQ(reply.status, 404) << method;
    EXPECT_NE(reply.body.find("\"error\""), std::string::npos);
    EXPECT_EQ(reply.header("access-control-allow-origin"), "") << method;
  }
  const HttpResult unknown = http_request(server_->port(), "GET", "/admin/other", {},
                                          {{"Origin", "https://shop.example"}});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.header("access-control-allow-origin"), "");
}

TEST_F(AdminFaultsTest, AMissingOrWrongKeyGets401AndFaultsNeedTheFlag) {
  services_.admin_key = api::AdminKey::of(kKey);  // no --faults
  start();
  const HttpResult missing = http_request(server_->port(), "GET", "/admin/faults");
  EXPECT_EQ(missing.status, 401);
  EXPECT_EQ(json::parse(missing.body).at("error").at("code").as_string(), "invalid_api_key");
  const HttpResult wrong = http_request(server_->port(), "GET", "/admin/faults", {},
                                        {{"Authorization", "Bearer " + kKey + "-not"}});
  EXPECT_EQ(wrong.status, 401);
  const HttpResult off = admin("GET", "/admin/faults");
  EXPECT_EQ(off.status, 404);
  EXPECT_NE(off.body.find("--faults"), std::string::npos) << off.body;
}

TEST_F(AdminFaultsTest, BadFaultsAreRefusedNamingTheField) {
  use_key_and_faults();
  start();
  EXPECT_EQ(refused_field(R"({"kind":"delay","delay_ms":10})"), "stage");
  EXPECT_EQ(refused_field(R"({"stage":"gpu","kind":"delay","delay_ms":10})"), "stage");
  EXPECT_EQ(refused_field(R"({"stage":"decode","delay_ms":10})"), "kind");
  EXPECT_EQ(refused_field(R"({"stage":"decode","kind":"delay"})"), "delay_ms");
  EXPECT_EQ(refused_field(R"({"stage":"decode","kind":"delay","delay_ms":-5})"), "delay_ms");
  EXPECT_EQ(refused_field(R"({"stage":"decode","kind":"delay","delay_ms":"5"})"), "delay_ms");
  EXPECT_EQ(refused_field(R"({"stage":"decode","kind":"delay","delay_ms":5,"percent":150})"),
            "percent");
  EXPECT_EQ(refused_field(R"({"stage":"queue","kind":"abort"})"), "status");
  EXPECT_EQ(refused_field(R"({"stage":"queue","kind":"abort","status":200})"), "status");
  // 2^32 + 503: an int would wrap it to 503; refused instead.
  EXPECT_EQ(refused_field(R"({"stage":"queue","kind":"abort","status":4294967799})"), "status");
  EXPECT_EQ(refused_field(R"({"stage":"decode","kind":"delay","delay_ms":5,"class":"vip"})"),
            "class");
  EXPECT_EQ(refused_field(R"({"stage":"decode","kind":"delay","delay_ms":5,"colour":1})"),
            "colour");
  EXPECT_EQ(admin("POST", "/admin/faults", "not json").status, 400);
  EXPECT_TRUE(json::parse(admin("GET", "/admin/faults").body).at("faults").as_array().empty());
}

TEST_F(AdminFaultsTest, AQueueAbortAnswersItsStatusUntilRemoved) {
  use_key_and_faults();
  start();
  const HttpResult added =
      admin("POST", "/admin/faults", R"({"stage":"queue","kind":"abort","status":503})");
  ASSERT_EQ(added.status, 201) << added.body;
  const std::int64_t id = json::parse(added.body).at("id").as_int64();

  const HttpResult refused = complete(2);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(json::parse(refused.body).at("error").at("code").as_string(), "fault_injected");
  const std::string metrics = http_request(server_->port(), "GET", "/metrics").body;
  EXPECT_NE(metrics.find(R"(supportd_faults_injected_total{stage="queue",kind="abort"} 1)"),
            std::string::npos);
  const json::value listed = json::parse(admin("GET", "/admin/faults").body);
  ASSERT_EQ(listed.at("faults").as_array().size(), 1u);
  EXPECT_EQ(listed.at("faults").as_array().at(0).at("injected").as_int64(), 1);

  EXPECT_EQ(admin("DELETE", "/admin/faults/" + std::to_string(id)).status, 200);
  EXPECT_EQ(admin("DELETE", "/admin/faults/" + std::to_string(id)).status, 404);
  EXPECT_EQ(complete(2).status, 200);
}

TEST_F(AdminFaultsTest, ADecodeDelayIsMarkedInTheTraceAndTheKillSwitchEndsIt) {
  use_key_and_faults();
  start();
  const HttpResult added = admin(
      "POST", "/admin/faults", R"({"stage":"decode","kind":"delay","delay_ms":40,"percent":100})");
  ASSERT_EQ(added.status, 201) << added.body;
  const auto started = std::chrono::steady_clock::now();
  const HttpResult slowed = complete(5);
  const auto took = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(slowed.status, 200) << slowed.body;
  // The prefill gives the first token, four decode steps the other four; each step is held
  // 40 ms after its tokens are sampled, so the last token comes after three holds at least: a
  // lower bound, whatever the machine's speed.
  EXPECT_GE(took, std::chrono::milliseconds(3 * 40));

  // The trace is kept once its request has ended on the server's side: asked until it shows.
  json::value traces;
  bool marked = false;
  for (int attempt = 0; attempt < 100 && !marked; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    traces = json::parse(http_request(server_->port(), "GET", "/v1/traces").body);
    for (const auto& trace : traces.at("traces").as_array()) {
      for (const auto& stage : trace.at("stages").as_array())
        marked = marked || stage.at("name").as_string() == "fault decode";
    }
  }
  EXPECT_TRUE(marked) << json::serialize(traces);

  const HttpResult cleared = admin("DELETE", "/admin/faults");
  EXPECT_EQ(cleared.status, 200);
  EXPECT_EQ(json::parse(cleared.body).at("removed").as_int64(), 1);
  EXPECT_TRUE(json::parse(admin("GET", "/admin/faults").body).at("faults").as_array().empty());
}

TEST_F(AdminFaultsTest, ADecodeThrottleSpacesTheTokensAndOnlyItsClass) {
  use_key_and_faults();
  start();
  const HttpResult added =
      admin("POST", "/admin/faults",
            R"({"stage":"decode","kind":"throttle","tokens_per_second":20,"class":"low"})");
  ASSERT_EQ(added.status, 201) << added.body;
  const auto timed = [&](const std::string& priority) {
    const auto started = std::chrono::steady_clock::now();
    const HttpResult reply = http_request(
        server_->port(), "POST", "/v1/completions",
        R"({"prompt":"Hello","max_tokens":9,"ignore_eos":true,"priority":")" + priority + R"("})",
        {{"Content-Type", "application/json"}});
    EXPECT_EQ(reply.status, 200) << reply.body;
    return std::chrono::steady_clock::now() - started;
  };
  // Nine tokens at most twenty a second: eight gaps of 50 ms at least (the first decode step
  // waits one interval after the prefill's token), a lower bound whatever the machine's speed.
  EXPECT_GE(timed("low"), std::chrono::milliseconds(8 * 50));
  const json::value listed = json::parse(admin("GET", "/admin/faults").body);
  EXPECT_EQ(listed.at("faults").as_array().at(0).at("injected").as_int64(), 1);
  timed("normal");  // another class passes the stage untouched: the fault is not drawn
  EXPECT_EQ(json::parse(admin("GET", "/admin/faults").body)
                .at("faults")
                .as_array()
                .at(0)
                .at("injected")
                .as_int64(),
            1);
}

TEST_F(AdminFaultsTest, AShedClassIsRefusedAndTheOthersServed) {
  use_key_and_faults();
  start();
  const auto ask = [&](const std::string& priority) {
    return http_request(server_->port(), "POST", "/v1/completions",
                        R"({"prompt":"Hello","max_tokens":2,"priority":")" + priority + R"("})",
                        {{"Content-Type", "application/json"}});
  };
  EXPECT_EQ(admin("POST", "/admin/shed", R"({"class":"urgent"})").status, 400);
  const HttpResult shed = admin("POST", "/admin/shed", R"({"class":"low"})");
  ASSERT_EQ(shed.status, 200) << shed.body;
  EXPECT_EQ(json::parse(shed.body).at("shed").as_array().at(0).as_string(), "low");
  const HttpResult refused = ask("low");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(json::parse(refused.body).at("error").at("code").as_string(), "class_shed");
  EXPECT_NE(refused.header("retry-after"), "");
  EXPECT_EQ(ask("normal").status, 200);
  EXPECT_EQ(admin("DELETE", "/admin/shed").status, 200);
  EXPECT_EQ(ask("low").status, 200);
}

}  // namespace
}  // namespace supportd
