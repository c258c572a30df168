// An OpenAI-compatible upstream as a model version (--upstream NAME=URL, or [[models]] with
// upstream = URL), in the server, in process: another server on loopback (a synthesized model,
// seed 44) is loaded through the loader serve uses (app::version_loader), listed in
// /admin/models with its URL, takes pinned requests and its share of a split beside a local
// version, and every answer names the version that served it.
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

TEST_F(ModelUpstreamVersionTest, AnUpstreamThatDoesNotAnswerIsRefusedNamingIt) {
  app::ModelVersion remote;
  remote.name = "remote";
  remote.upstream = origin_url();
  origin_->stop();  // nothing listens there now
  serve_config_.upstream.timeout_s = 1;
  auto engine = app::version_loader(serve_config_, remote).create();
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.error().message.find(origin_url()), std::string::npos) << engine.error().message;
}

}  // namespace
}  // namespace supportd
