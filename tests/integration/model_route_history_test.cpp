// The route history kept in the store (app::keep_route_history, store/route_history.h), in
// the server: what a previous run kept is shown by GET /admin/routes before this run's
// changes; every change (set, rollback) is appended, so a new store on the same file (a
// restart) reads them all back, splits and shadows whole.
#include <gtest/gtest.h>

#include <unistd.h>
#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "app/router_setup.h"
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
    ModelRouterFixture::TearDown();
    for (const char* suffix : {"", "-wal", "-shm"})
      std::filesystem::remove(path_.string() + suffix);
  }
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

}  // namespace
}  // namespace supportd
