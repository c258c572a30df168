// An OpenAI-compatible upstream as a model version (--upstream NAME=URL, or [[models]] with
// upstream = URL), in the server, in process: another server on loopback (a synthesized model,
// seed 44) is loaded through the loader serve uses (app::version_loader), listed in
// /admin/models with its URL, takes pinned requests and its share of a split beside a local
// version, and every answer names the version that served it. Loaded at run time too
// (POST /admin/models with "upstream"): warmed and checked as any version before it is ready,
// then a roll-out onto it; one that does not answer ends failed naming its URL; bad bodies
// answer 400 naming the field.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <set>

#include "model_router_fixture.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;

class ModelUpstreamVersionTest : public testing::ModelRouterFixture {
 protected:
  void SetUp() override {
    ModelRouterFixture::SetUp();
    engine::llama::EngineOptions options = serve_config_.engine;
    options.model_path = testing::synthesized_model("tiny", "f16", true, 44);
    auto created = engine::llama::LlamaEngine::create(options);
    ASSERT_TRUE(created.ok()) << created.error().message;
    origin_engine_ = std::move(created).value();
    origin_services_.engine = origin_engine_.get();
    origin_routes_.emplace(api::make_router(origin_services_));
    http::ServerOptions server_options;
    server_options.port = 0;
    origin_.emplace(server_options,
                    [this](http::Request& r) { return origin_routes_->dispatch(r); });
    ASSERT_TRUE(origin_->start().ok());
  }
  void TearDown() override {
    ModelRouterFixture::TearDown();
    if (origin_) origin_->stop();
    if (origin_engine_) origin_engine_->shutdown();
  }
  std::string origin_url() const { return "http://127.0.0.1:" + std::to_string(origin_->port()); }

  std::unique_ptr<engine::Engine> origin_engine_;
  api::Services origin_services_;
  std::optional<http::Router> origin_routes_;
  std::optional<http::Server> origin_;
};

TEST_F(ModelUpstreamVersionTest, AnUpstreamTakesPinnedRequestsAndItsShareOfASplit) {
  app::ModelVersion remote;
  remote.name = "remote";
  remote.upstream = origin_url();
  remote.where = "--upstream";
  const engine::router::VersionLoader loader = app::version_loader(serve_config_, remote);
  auto facts = loader.inspect();
  ASSERT_TRUE(facts.ok()) << facts.error().message;
  auto engine = loader.create();
  ASSERT_TRUE(engine.ok()) << engine.error().message;
  ASSERT_TRUE(router_->add_version("remote", std::move(engine).value(), *facts).ok());
  start();

  const json::value listed = version_json("remote");
  ASSERT_FALSE(listed.is_null());
  EXPECT_EQ(listed.at("state").as_string(), "ready") << listed;
  EXPECT_EQ(listed.at("path").as_string(), origin_url()) << listed;

  EXPECT_EQ(served_by(R"(,"model":"remote")"), "remote");
  ASSERT_EQ(
      admin("PUT", "/admin/routes/default", R"({"weights":{"v1":50,"remote":50},"sticky":false})")
          .status,
      200);
  std::set<std::string> seen;
  for (int i = 0; i < 30 && seen.size() < 2; ++i)
    seen.insert(served_by(""));
  EXPECT_EQ(seen, (std::set<std::string>{"remote", "v1"}));
  // Streamed: the chunks name the upstream version too.
  const testing::HttpResult stream = testing::http_request(
      server_->port(), "POST", "/v1/completions",
      R"({"prompt":"Hello","max_tokens":2,"stream":true,"model":"remote"})", testing::kJson);
  ASSERT_EQ(stream.status, 200) << stream.body;
  EXPECT_NE(stream.body.find(R"("model":"remote")"), std::string::npos) << stream.body;
  // The origin served what the router gave the upstream: its own count went up.
  EXPECT_GT(origin_engine_->stats().tokens_generated, 0);
}

TEST_F(ModelUpstreamVersionTest, AnUpstreamLoadedAtRunTimeWarmsUpThenTakesTheTraffic) {
  start();
  const testing::HttpResult started =
      admin("POST", "/admin/models",
            R"({"name":"remote","upstream":")" + origin_url() + R"(","by":"ana"})");
  ASSERT_EQ(started.status, 202) << started.body;
  EXPECT_EQ(json::parse(started.body).at("state").as_string(), "loading");
  ASSERT_EQ(wait_for_state("remote", "ready"), "ready");
  const json::value listed = version_json("remote");
  EXPECT_EQ(listed.at("path").as_string(), origin_url()) << listed;
  EXPECT_GT(listed.at("warmup_ms").as_double(), 0) << listed;
  // The warm-up's check request went through to the origin before any customer's did.
  EXPECT_GT(origin_engine_->stats().tokens_generated, 0);
  EXPECT_EQ(served_by(R"(,"model":"remote")"), "remote");
  // The roll-out: a canary share, then everything, then back.
  ASSERT_EQ(admin("PUT", "/admin/routes/default", R"({"weights":{"v1":50,"remote":50}})").status,
            200);
  ASSERT_EQ(admin("PUT", "/admin/routes/default", R"({"weights":{"v1":0,"remote":100}})").status,
            200);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(served_by(""), "remote");
  ASSERT_EQ(admin("POST", "/admin/routes/default/rollback", "{}").status, 200);
  std::set<std::string> seen;
  for (int i = 0; i < 30 && seen.size() < 2; ++i)
    seen.insert(served_by(""));
  EXPECT_EQ(seen, (std::set<std::string>{"remote", "v1"}));
}

TEST_F(ModelUpstreamVersionTest, AnUpstreamThatDoesNotAnswerAtRunTimeFailsNamingIt) {
  serve_config_.upstream.timeout_s = 1;
  start();
  const std::string url = origin_url();
  // Nothing listens there now. Destroyed, not only stopped: a stopped http::Server may keep
  // its listening socket open until it is destroyed, and connections to it then hang until
  // the upstream's timeout, for each of its tries (minutes in all) instead of being refused.
  origin_.reset();
  ASSERT_EQ(admin("POST", "/admin/models", R"({"name":"remote","upstream":")" + url + "\"}").status,
            202);
  // Its engine asks for the model list for a few seconds before it gives up (as at start).
  ASSERT_EQ(wait_for_state("remote", "failed"), "failed");
  const json::value listed = version_json("remote");
  EXPECT_NE(std::string(listed.at("reason").as_string()).find(url), std::string::npos) << listed;
  EXPECT_EQ(refused_field(R"({"weights":{"v1":50,"remote":50}})"), "weights.remote");
  EXPECT_EQ(served_by(""), "v1");
}

TEST_F(ModelUpstreamVersionTest, LoadingAnUpstreamNamesTheBadField) {
  start();
  const auto refused = [this](const std::string& body) {
    return refused_field(body, "/admin/models", "POST");
  };
  const std::string file = testing::synthesized_model("tiny", "f16", true, 44);
  const std::string up = R"(,"upstream":")" + origin_url() + "\"";
  EXPECT_EQ(refused(R"({"name":"r","path":")" + file + "\"" + up + "}"), "upstream");  // both
  EXPECT_EQ(refused(R"({"name":"r"})"), "path");                                       // neither
  EXPECT_EQ(refused(R"({"name":"r","upstream":"https://10.0.0.5:8000"})"), "upstream");
  EXPECT_EQ(refused(R"({"name":"r","upstream":"10.0.0.5:8000"})"), "upstream");
  EXPECT_EQ(refused(R"({"name":"r","upstream":5})"), "upstream");
  EXPECT_EQ(refused(R"({"name":"r","sha256":")" + std::string(64, 'a') + "\"" + up + "}"),
            "sha256");
  EXPECT_EQ(refused(R"({"name":"r","parallel":4)" + up + "}"), "parallel");
  EXPECT_EQ(refused(R"({"name":"r","ctx_size":1024)" + up + "}"), "ctx_size");
  EXPECT_EQ(refused(R"({"name":"r","upstream_model":"m","path":")" + file + "\"}"),
            "upstream_model");
  EXPECT_EQ(refused(R"({"name":"v1")" + up + "}"), "name");  // used
  EXPECT_TRUE(version_json("r").is_null());
}

TEST_F(ModelUpstreamVersionTest, AnUpstreamThatDoesNotAnswerIsRefusedNamingIt) {
  app::ModelVersion remote;
  remote.name = "remote";
  remote.upstream = origin_url();
  // Nothing listens there now. Destroyed, not only stopped: a stopped http::Server may keep
  // its listening socket open until it is destroyed, and connections to it then hang until
  // the upstream's timeout, for each of its tries (minutes in all) instead of being refused.
  origin_.reset();
  serve_config_.upstream.timeout_s = 1;
  auto engine = app::version_loader(serve_config_, remote).create();
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.error().message.find(remote.upstream), std::string::npos)
      << engine.error().message;
}

}  // namespace
}  // namespace supportd
