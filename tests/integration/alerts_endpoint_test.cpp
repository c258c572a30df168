// The anomaly watch in the server, in process, on an ephemeral port: a step in the recorded
// time to first token raises the class's TTFT alert, which GET /v1/alerts lists (what fired,
// since when, the value) and /metrics shows as supportd_alert_active; without a monitor the
// endpoint answers 404 with a JSON error. The watch is ticked by the test, with a clock it
// moves one second a tick, so nothing depends on how fast the machine is.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <thread>

#include "api/anomaly_watch.h"
#include "api/routes.h"
#include "api/serving_metrics.h"
#include "engine/llama/llama_engine.h"
#include "http/server.h"
#include "http_client.h"
#include "obs/anomaly/signal_monitor.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::http_request;

class AlertsEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine::llama::EngineOptions options;
    options.model_path = testing::synthesized_model();
    options.threads = 0;
    options.parallel = 2;
    auto created = engine::llama::LlamaEngine::create(options);
    ASSERT_TRUE(created.ok()) << created.error().message;
    engine_ = std::move(created).value();
    metrics_.emplace(registry_, *engine_);
    watch_.emplace(*metrics_, monitor_);
    services_.engine = engine_.get();
    services_.metrics = &*metrics_;
    services_.anomaly = &monitor_;
    router_.emplace(api::make_router(services_));
    http::ServerOptions server_options;
    server_options.port = 0;
    server_options.threads = 1;
    server_.emplace(server_options, [this](http::Request& r) { return router_->dispatch(r); });
    ASSERT_TRUE(server_->start().ok());
  }
  void TearDown() override {
    if (server_) server_->stop();
    watch_.reset();
    if (engine_) engine_->shutdown();
  }

  // Records `count` finished requests of the normal class taking `ttft` seconds to the first
  // token and twice that in all.
  void record(int count, double ttft) {
    for (int i = 0; i < count; ++i) {
      api::RequestRecord r;
      r.priority = "normal";
      r.tenant = "anonymous";
      r.first_token_seconds = ttft;
      r.total_seconds = 2 * ttft;
      r.completion_tokens = 16;
      metrics_->record(r);
    }
  }
  void tick() {
    now_ += std::chrono::seconds(1);
    watch_->tick(now_);
  }
  json::object get_alerts() {
    const auto reply = http_request(server_->port(), "GET", "/v1/alerts");
    EXPECT_EQ(reply.status, 200) << reply.body;
    EXPECT_NE(reply.header("content-type").find("application/json"), std::string::npos);
    return json::parse(reply.body).as_object();
  }

  std::unique_ptr<engine::llama::LlamaEngine> engine_;
  obs::Registry registry_;
  std::optional<api::ServingMetrics> metrics_;
  obs::anomaly::AnomalyMonitor monitor_;
  std::optional<api::AnomalyWatch> watch_;
  api::Services services_;
  std::optional<http::Router> router_;
  std::optional<http::Server> server_;
  api::AnomalyWatch::Clock::time_point now_ = api::AnomalyWatch::Clock::now();
};

TEST_F(AlertsEndpointTest, ATimeToFirstTokenStepRaisesTheClassAlertShownInAlertsAndMetrics) {
  json::object document = get_alerts();
  EXPECT_TRUE(document.at("active").as_array().empty());
  EXPECT_TRUE(document.at("recent").as_array().empty());
  EXPECT_DOUBLE_EQ(document.at("thresholds").at("raise").as_double(),
                   monitor_.options().alert.raise);

  // A steady 0.3 s to the first token, learnt over 200 ticks.
  record(20, 0.3);
  for (int t = 0; t < 200; ++t)
    tick();
  document = get_alerts();
  for (const auto& active : document.at("active").as_array()) {
    EXPECT_FALSE(std::string(active.at("alert").as_string()).starts_with("ttft"))
        << "a steady latency raised " << json::serialize(active);
  }
  bool watched = false;
  for (const auto& signal : document.at("signals").as_array()) {
    if (signal.at("signal").as_string() != "ttft_p99.normal") continue;
    watched = true;
    EXPECT_DOUBLE_EQ(signal.at("value").as_double(), 0.3);
    EXPECT_FALSE(signal.at("learning").as_bool());
  }
  EXPECT_TRUE(watched) << "ttft_p99.normal is not watched: " << json::serialize(document);

  // The step: most requests now wait 3.2 s.
  record(200, 3.2);
  for (int t = 0; t < 5; ++t)
    tick();
  document = get_alerts();
  const json::object* alert = nullptr;
  for (const auto& active : document.at("active").as_array()) {
    if (active.at("alert").as_string() == "ttft_p99.normal") alert = &active.as_object();
  }
  ASSERT_NE(alert, nullptr) << "no ttft_p99.normal alert: " << json::serialize(document);
  EXPECT_TRUE(alert->at("active").as_bool());
  EXPECT_DOUBLE_EQ(alert->at("raised_by").at("value").as_double(), 3.2);
  EXPECT_GE(alert->at("raised_by").at("score").as_double(), monitor_.options().alert.raise);
  EXPECT_EQ(alert->at("since").as_string().size(), 20u);  // 2026-12-04T17:00:00Z
  EXPECT_FALSE(alert->contains("ended"));

  const auto metrics = http_request(server_->port(), "GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("supportd_alert_active{alert=\"ttft_p99.normal\"} 1"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("supportd_alerts_raised_total{alert=\"ttft_p99.normal\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("supportd_anomaly_score{signal=\"ttft_p99.normal\"}"),
            std::string::npos);
}

TEST_F(AlertsEndpointTest, AnswersNotFoundWhenTheWatchIsOff) {
  services_.anomaly = nullptr;
  const auto reply = http_request(server_->port(), "GET", "/v1/alerts");
  EXPECT_EQ(reply.status, 404);
  const json::value body = json::parse(reply.body);
  EXPECT_NE(std::string(body.at("error").at("message").as_string()).find("--anomaly off"),
            std::string::npos);
}

}  // namespace
}  // namespace supportd
