// The route history kept in the store (app::keep_route_history, store/route_history.h), in
// the server: what a previous run kept is shown by GET /admin/routes before this run's
// changes; every change (set, rollback) is appended, so a new store on the same file (a
// restart) reads them all back, splits and shadows whole; a restarted server serves the split
// the last run left (when every version it names is loaded again).
#include <gtest/gtest.h>

#include <unistd.h>
#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "api/routes.h"
#include "app/router_setup.h"
#include "engine/llama/llama_engine.h"
#include "engine/router/split.h"
#include "model_router_fixture.h"
#include "store/route_history.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::HttpResult;

class ModelRouteHistoryTest : public testing::ModelRouterFixture {
 protected:
  void TearDown() override {
    stop_restarted();
    ModelRouterFixture::TearDown();
    for (const char* suffix : {"", "-wal", "-shm"})
      std::filesystem::remove(path_.string() + suffix);
  }
  // A second run of the server on the same route history: a new router of the same two
  // versions behind the admin routes (`restarted_` / `restarted_server_`), as serve starts.
  void restart() {
    restarted_ = std::make_unique<engine::router::RouterEngine>();
    for (const auto& [name, seed] : {std::pair{"v1", 42}, std::pair{"v2", 43}}) {
      engine::llama::EngineOptions options = serve_config_.engine;
      options.model_path = testing::synthesized_model("tiny", "f16", true, seed);
      auto created = engine::llama::LlamaEngine::create(options);
      ASSERT_TRUE(created.ok()) << created.error().message;
      ASSERT_TRUE(restarted_->add_version(name, std::move(created).value(), {}).ok());
    }
    auto kept = app::keep_route_history(*restarted_, path_);
    ASSERT_TRUE(kept.ok()) << kept.error().message;
    restarted_history_ = std::move(kept).value();
    restarted_services_.engine = restarted_.get();
    restarted_services_.router = restarted_.get();
    restarted_services_.admin_key = api::AdminKey::of(testing::kKey);
    restarted_routes_.emplace(api::make_router(restarted_services_));
    http::ServerOptions options;
    options.port = 0;
    restarted_server_.emplace(api::serve_routes_with(restarted_services_, options),
                              [this](http::Request& r) { return restarted_routes_->dispatch(r); });
    ASSERT_TRUE(restarted_server_->start().ok());
  }
  HttpResult restarted_admin(const std::string& method, const std::string& target,
                             const std::string& body = {}) {
    return testing::http_request(restarted_server_->port(), method, target, body, testing::kAdmin);
  }
  void stop_restarted() {
    if (restarted_server_) restarted_server_->stop();
    if (restarted_) restarted_->shutdown();
  }

  std::unique_ptr<engine::router::RouterEngine> restarted_;
  std::unique_ptr<store::RouteHistory> restarted_history_;
  api::Services restarted_services_;
  std::optional<http::Router> restarted_routes_;
  std::optional<http::Server> restarted_server_;
  const std::filesystem::path path_ = std::filesystem::temp_directory_path() /
                                      ("supportd-routes-" + std::to_string(getpid()) + ".sqlite");
};

TEST_F(ModelRouteHistoryTest, TheHistorySurvivesARestartInTheStore) {
  {
    auto previous = store::RouteHistory::open(path_);  // what an earlier run kept
    ASSERT_TRUE(previous.ok()) << previous.error().message;
    ASSERT_TRUE(
        (*previous)
            ->append({"default", "set", "v1=100;sticky=1", "v1=0,v2=100;sticky=1;shadow=v1:5",
                      "ana from 127.0.0.1", 1700000000000})
            .ok());
  }
  auto kept = app::keep_route_history(*router_, path_);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  start();
  const json::value before = json::parse(admin("GET", "/admin/routes").body);
  const json::array& earlier = before.at("history").as_array();
  ASSERT_EQ(earlier.size(), 1u) << before;
  EXPECT_EQ(earlier[0].at("by").as_string(), "ana from 127.0.0.1");
  EXPECT_EQ(earlier[0].at("unix_ms").as_int64(), 1700000000000);
  EXPECT_EQ(earlier[0].at("after").at("weights").at("v2").as_int64(), 100);
  EXPECT_EQ(earlier[0].at("after").at("shadow").at("percent").as_int64(), 5);

  ASSERT_EQ(admin("PUT", "/admin/routes/default",
                  R"({"weights":{"v1":50,"v2":50},"sticky":false,"by":"bo"})")
                .status,
            200);
  ASSERT_EQ(admin("POST", "/admin/routes/default/rollback", R"({"by":"cy"})").status, 200);
  EXPECT_EQ(json::parse(admin("GET", "/admin/routes").body).at("history").as_array().size(), 3u);

  auto reopened = store::RouteHistory::open(path_);  // a restart reads the same file
  ASSERT_TRUE(reopened.ok()) << reopened.error().message;
  auto records = (*reopened)->recent(10);
  ASSERT_TRUE(records.ok()) << records.error().message;
  ASSERT_EQ(records->size(), 3u);
  EXPECT_NE((*records)[1].who.find("bo"), std::string::npos);
  EXPECT_EQ((*records)[2].action, "rollback");
  EXPECT_NE((*records)[2].who.find("cy"), std::string::npos);
  auto split = engine::router::decode_split((*records)[1].after);
  ASSERT_TRUE(split.ok()) << split.error().message;
  ASSERT_EQ(split->shares.size(), 2u);
  EXPECT_EQ(split->shares[1].version, "v2");
  EXPECT_EQ(split->shares[1].weight, 50);
  EXPECT_FALSE(split->sticky);
  EXPECT_GT((*records)[2].unix_ms, 1700000000000);
}

TEST_F(ModelRouteHistoryTest, ARestartedServerServesTheLastSplit) {
  auto kept = app::keep_route_history(*router_, path_);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  start();
  ASSERT_EQ(admin("PUT", "/admin/routes/default",
                  R"({"weights":{"v1":50,"v2":50},"sticky":true,"by":"ana"})")
                .status,
            200);
  ASSERT_EQ(admin("PUT", "/admin/routes/default",
                  R"({"weights":{"v1":0,"v2":100},"shadow":{"version":"v1","percent":10}})")
                .status,
            200);
  ASSERT_EQ(admin("PUT", "/admin/routes/canary", R"({"weights":{"v2":100}})").status, 200);
  server_->stop();
  router_->shutdown();

  restart();
  const json::value routes = json::parse(restarted_admin("GET", "/admin/routes").body);
  const json::object& deployments = routes.at("deployments").as_object();
  EXPECT_EQ(deployments.at("default").at("weights").at("v2").as_int64(), 100) << routes;
  EXPECT_EQ(deployments.at("default").at("weights").at("v1").as_int64(), 0) << routes;
  EXPECT_EQ(deployments.at("default").at("shadow").at("version").as_string(), "v1") << routes;
  EXPECT_EQ(deployments.at("canary").at("weights").at("v2").as_int64(), 100) << routes;
  // Requests follow it: a request naming nothing is served by v2 alone.
  for (int i = 0; i < 4; ++i) {
    const HttpResult reply =
        testing::http_request(restarted_server_->port(), "POST", "/v1/completions",
                              R"({"prompt":"Where is my parcel?","max_tokens":1})", testing::kJson);
    ASSERT_EQ(reply.status, 200) << reply.body;
    EXPECT_EQ(json::parse(reply.body).at("model").as_string(), "v2");
  }
  // The earlier splits came back too: a rollback goes to the 50/50 the first run set.
  ASSERT_EQ(restarted_admin("POST", "/admin/routes/default/rollback", "{}").status, 200);
  const json::value rolled = json::parse(restarted_admin("GET", "/admin/routes").body);
  EXPECT_EQ(rolled.at("deployments").at("default").at("weights").at("v1").as_int64(), 50) << rolled;
  // Restoring is not a change: the history holds the first run's three and the rollback.
  EXPECT_EQ(rolled.at("history").as_array().size(), 4u) << rolled;
}

TEST_F(ModelRouteHistoryTest, ASplitNamingAVersionNotLoadedIsNotRestored) {
  {
    auto previous = store::RouteHistory::open(path_);
    ASSERT_TRUE(previous.ok()) << previous.error().message;
    ASSERT_TRUE((*previous)
                    ->append({"default", "set", "v1=100;sticky=1", "v1=20,v3=80;sticky=1", "ana",
                              1700000000000})
                    .ok());
    ASSERT_TRUE(
        (*previous)->append({"faq", "set", "", "v2=100;sticky=1", "ana", 1700000000001}).ok());
  }
  restart();
  const json::value routes = json::parse(restarted_admin("GET", "/admin/routes").body);
  const json::object& deployments = routes.at("deployments").as_object();
  // v3 is not loaded: default starts as without a history, on the first version.
  EXPECT_EQ(deployments.at("default").at("weights").at("v1").as_int64(), 100) << routes;
  EXPECT_FALSE(deployments.at("default").at("weights").as_object().contains("v3")) << routes;
  EXPECT_EQ(deployments.at("faq").at("weights").at("v2").as_int64(), 100) << routes;
}

}  // namespace
}  // namespace supportd
