// Model versions behind the router, in the server, in process, on an ephemeral port, with two
// synthesized models (seeds 42 and 43: two files, two SHA-256s): /v1/models shows each
// version's file; a request naming nothing reaches "default", one naming a version is pinned
// to it, and every answer's "model" (streamed chunks too) names the version that served it;
// a 50/50 sticky split keeps each user on one version and uses both, the version the router
// names for that user without generating (version_for, the desk's arms); the admin routes need
// the key, refuse bad splits with 400 naming the field, and roll a split back at once with the
// change kept in the history; a version whose SHA-256 is not the configured one is kept out
// of traffic and /ready says degraded with the reason; unloading a version drains it: a stream
// in flight on it finishes whole, new requests are refused, then the version is gone; a
// canary made slow (a drill's prefill delay on the requests sent to it) is rolled back by the
// automatic rollback, with the figure that tripped it in the history and the alert; the load
// tester (`supportd bench`) reports a 50/50 split per version, from the answers' "model".
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <mutex>
#include <set>
#include <thread>

#include "bench/report.h"
#include "bench/runner.h"
#include "model_router_fixture.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::http_request;
using testing::HttpResult;
using testing::kJson;
using Headers = testing::Headers;

class ModelRouterTest : public testing::ModelRouterFixture {};

TEST_F(ModelRouterTest, ModelsShowEachVersionsFile) {
  start();
  const HttpResult reply = http_request(server_->port(), "GET", "/v1/models");
  ASSERT_EQ(reply.status, 200) << reply.body;
  std::map<std::string, json::object> cards;
  const json::value body = json::parse(reply.body);
  for (const json::value& card : body.at("data").as_array())
    cards[std::string(card.at("id").as_string())] = card.as_object();
  ASSERT_TRUE(cards.contains("default") && cards.contains("v1") && cards.contains("v2"));
  EXPECT_EQ(cards["v1"].at("sha256").as_string().size(), 64u);
  EXPECT_NE(cards["v1"].at("sha256"), cards["v2"].at("sha256"));
  EXPECT_EQ(cards["v1"].at("architecture").as_string(), "llama");
  EXPECT_EQ(cards["v1"].at("state").as_string(), "ready");
  EXPECT_GT(cards["v2"].at("bytes").as_int64(), 0);

  const HttpResult versions = admin("GET", "/admin/models");
  ASSERT_EQ(versions.status, 200) << versions.body;
  const json::value listed = json::parse(versions.body);
  const json::array& list = listed.at("versions").as_array();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].at("traffic_percent").at("default").as_int64(), 100);
  EXPECT_EQ(list[1].at("traffic_percent").as_object().size(), 0u);
}

TEST_F(ModelRouterTest, DefaultAndPinnedRequestsNameTheVersionThatServedThem) {
  start();
  EXPECT_EQ(served_by(""), "v1");
  EXPECT_EQ(served_by(R"(,"model":"default")"), "v1");
  EXPECT_EQ(served_by(R"(,"model":"v2")"), "v2");
  // Streamed: every chunk names it.
  const HttpResult stream = http_request(
      server_->port(), "POST", "/v1/completions",
      R"({"prompt":"Hello","max_tokens":3,"stream":true,"model":"v2","ignore_eos":true})", kJson);
  ASSERT_EQ(stream.status, 200) << stream.body;
  int chunks = 0;
  for (const std::string& data : testing::sse_data(stream.body)) {
    if (data == "[DONE]") continue;
    EXPECT_EQ(json::parse(data).at("model").as_string(), "v2") << data;
    ++chunks;
  }
  EXPECT_GT(chunks, 0);
  const HttpResult unknown =
      http_request(server_->port(), "POST", "/v1/completions",
                   R"({"prompt":"Hello","max_tokens":1,"model":"v9"})", kJson);
  EXPECT_EQ(unknown.status, 404) << unknown.body;
  EXPECT_EQ(json::parse(unknown.body).at("error").at("param").as_string(), "model");
}

TEST_F(ModelRouterTest, AStickySplitKeepsEachUserOnOneVersionAndUsesBoth) {
  start();
  const HttpResult set = admin("PUT", "/admin/routes/default",
                               R"({"weights":{"v1":50,"v2":50},"sticky":true,"by":"test"})");
  ASSERT_EQ(set.status, 200) << set.body;
  std::set<std::string> seen;
  for (int user = 0; user < 16; ++user) {
    const std::string field = R"(,"user":"customer-)" + std::to_string(user) + "\"";
    const std::string first = served_by(field);
    seen.insert(first);
    EXPECT_EQ(served_by(field), first) << field;
    EXPECT_EQ(served_by(field), first) << field;
    // Asked without generating (the desk's arms), the router names the same version.
    EXPECT_EQ(router_->version_for("", "customer-" + std::to_string(user)), first) << field;
  }
  // 16 users at 50/50 all on one side: a chance of 2 in 65536.
  EXPECT_EQ(seen, (std::set<std::string>{"v1", "v2"}));
  // The conversation's header wins over the user: one session, one version.
  const Headers session = {{"Content-Type", "application/json"}, {"X-Session-Id", "s-77"}};
  const std::string by_session = served_by("", session);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(served_by(R"(,"user":"customer-)" + std::to_string(i) + "\"", session), by_session);
  EXPECT_EQ(router_->version_for("default", "s-77"), by_session);
  // Pinned: the version itself; an unknown name: none.
  EXPECT_EQ(router_->version_for("v2", "s-77"), "v2");
  EXPECT_EQ(router_->version_for("nowhere", "s-77"), "");
}

TEST_F(ModelRouterTest, AdminRoutesNeedTheKeyAndNameTheBadField) {
  start();
  for (const auto& [method, target] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/admin/models"},
           {"GET", "/admin/routes"},
           {"PUT", "/admin/routes/default"},
           {"POST", "/admin/routes/default/rollback"}}) {
    const HttpResult reply =
        http_request(server_->port(), method, target, R"({"weights":{"v2":100}})", kJson);
    EXPECT_EQ(reply.status, 401) << method << " " << target;
  }
  EXPECT_EQ(served_by(""), "v1");  // nothing changed
  EXPECT_EQ(refused_field(R"({"weights":{"v1":50,"v3":50}})"), "weights.v3");
  EXPECT_EQ(refused_field(R"({"weights":{"v1":60,"v2":60}})"), "weights");
  EXPECT_EQ(refused_field(R"({"weights":{"v1":110,"v2":-10}})"), "weights.v1");
  EXPECT_EQ(refused_field(R"({"weights":{"v1":-10,"v2":110}})"), "weights.v1");
  EXPECT_EQ(refused_field(R"({"weights":{"v1":"half","v2":50}})"), "weights.v1");
  EXPECT_EQ(refused_field(R"({"weights":{"v1":100},"sticky":"yes"})"), "sticky");
  EXPECT_EQ(refused_field(R"({"split":{"v1":100}})"), "weights");
  const HttpResult as_version = admin("PUT", "/admin/routes/v1", R"({"weights":{"v2":100}})");
  EXPECT_EQ(as_version.status, 400);
  EXPECT_EQ(json::parse(as_version.body).at("error").at("param").as_string(), "deployment");
  const HttpResult nothing_before = admin("POST", "/admin/routes/default/rollback");
  EXPECT_EQ(nothing_before.status, 400) << nothing_before.body;
  EXPECT_EQ(admin("POST", "/admin/routes/nowhere/rollback").status, 404);
  EXPECT_EQ(served_by(""), "v1");
}

TEST_F(ModelRouterTest, RollbackPutsThePreviousSplitBackAtOnceAndIsKeptInTheHistory) {
  start();
  ASSERT_EQ(
      admin("PUT", "/admin/routes/default", R"({"weights":{"v1":0,"v2":100},"by":"ana"})").status,
      200);
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(served_by(""), "v2");
  const HttpResult rolled = admin("POST", "/admin/routes/default/rollback", R"({"by":"bo"})");
  ASSERT_EQ(rolled.status, 200) << rolled.body;
  EXPECT_EQ(served_by(""), "v1");  // the very next request
  const json::value routes = json::parse(admin("GET", "/admin/routes").body);
  EXPECT_EQ(routes.at("deployments").at("default").at("weights").at("v1").as_int64(), 100);
  const json::array& history = routes.at("history").as_array();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].at("action").as_string(), "set");
  EXPECT_NE(history[0].at("by").as_string().find("ana"), std::string::npos);
  EXPECT_EQ(history[1].at("action").as_string(), "rollback");
  EXPECT_NE(history[1].at("by").as_string().find("bo"), std::string::npos);
  EXPECT_EQ(history[1].at("after").at("weights").at("v1").as_int64(), 100);
  // A named deployment of its own: a canary reachable by its name.
  ASSERT_EQ(admin("PUT", "/admin/routes/canary", R"({"weights":{"v2":100}})").status, 200);
  EXPECT_EQ(served_by(R"(,"model":"canary")"), "v2");
  EXPECT_EQ(served_by(""), "v1");
}

TEST_F(ModelRouterTest, AVersionWithTheWrongSha256IsKeptOutOfTraffic) {
  add("v3", testing::synthesized_model("tiny", "f16", true, 43), std::string(64, '0'));
  start();
  const HttpResult pinned = http_request(server_->port(), "POST", "/v1/completions",
                                         R"({"prompt":"Hi","max_tokens":1,"model":"v3"})", kJson);
  EXPECT_EQ(pinned.status, 503) << pinned.body;
  EXPECT_NE(pinned.body.find("SHA-256 mismatch"), std::string::npos) << pinned.body;
  EXPECT_EQ(refused_field(R"({"weights":{"v1":50,"v3":50}})"), "weights.v3");
  const HttpResult ready = http_request(server_->port(), "GET", "/ready");
  EXPECT_EQ(ready.status, 200);  // the others still serve
  const json::value body = json::parse(ready.body);
  EXPECT_EQ(body.at("status").as_string(), "degraded");
  ASSERT_EQ(body.at("problems").as_array().size(), 1u);
  EXPECT_NE(body.at("problems").as_array()[0].as_string().find("v3"), std::string::npos);
  const json::array versions =
      json::parse(admin("GET", "/admin/models").body).at("versions").as_array();
  EXPECT_EQ(versions[2].at("state").as_string(), "failed");
  EXPECT_EQ(served_by(""), "v1");
}

TEST_F(ModelRouterTest, UnloadingDrainsAStreamInFlightThenTheVersionIsGone) {
  start();
  EXPECT_EQ(admin("DELETE", "/admin/models/v1").status, 400);  // it still takes the traffic
  HttpResult stream;
  std::thread client = long_stream("v2", stream);
  const HttpResult drained = admin("DELETE", "/admin/models/v2");
  ASSERT_EQ(drained.status, 202) << drained.body;
  EXPECT_EQ(json::parse(drained.body).at("in_flight").as_int64(), 1);
  const HttpResult refused = http_request(server_->port(), "POST", "/v1/completions",
                                          R"({"prompt":"Hi","max_tokens":1,"model":"v2"})", kJson);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_NE(refused.body.find("draining"), std::string::npos) << refused.body;
  client.join();
  ASSERT_EQ(stream.status, 200);
  const std::vector<std::string> events = testing::sse_data(stream.body);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back(), "[DONE]");
  int tokens = 0;
  std::string finish;
  for (const std::string& data : events) {
    if (data == "[DONE]") continue;
    const json::value chunk = json::parse(data);
    const json::value& choice = chunk.at("choices").as_array()[0];
    if (!choice.at("text").as_string().empty()) ++tokens;
    if (choice.at("finish_reason").is_string())
      finish = std::string(choice.at("finish_reason").as_string());
  }
  EXPECT_EQ(finish, "length") << stream.body;  // not cut: every token it asked for
  EXPECT_GT(tokens, 0);
  for (int i = 0; i < 1000 && in_flight("v2") != -1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_EQ(in_flight("v2"), -1);  // unloaded
  const HttpResult gone = http_request(server_->port(), "POST", "/v1/completions",
                                       R"({"prompt":"Hi","max_tokens":1,"model":"v2"})", kJson);
  EXPECT_EQ(gone.status, 404) << gone.body;
  EXPECT_EQ(served_by(""), "v1");
}

TEST_F(ModelRouterTest, ASlowCanaryIsRolledBackAutomatically) {
  // As serve does with --auto-rollback, judging sooner: 10 requests on each side.
  std::mutex mutex;
  std::vector<std::string> alerts;  // guarded by mutex
  engine::router::CanaryLimits limits;
  limits.min_requests = 10;
  router_->watch_canaries(limits, std::chrono::milliseconds(20),
                          [&](const std::string& deployment, const std::string& verdict) {
                            std::lock_guard lock(mutex);
                            alerts.push_back(deployment + ": " + verdict);
                          });
  start();
  ASSERT_EQ(admin("PUT", "/admin/routes/default", R"({"weights":{"v1":100}})").status, 200);
  ASSERT_EQ(admin("PUT", "/admin/routes/default", R"({"weights":{"v1":90,"v2":10}})").status,
            200);  // v1 stable (it had the most weight before), v2 the canary
  // The canary made slow: a drill's prefill delay on the class "low", which only the requests
  // sent to v2 here carry (v2's TTFT is timed from the router's submit, the delay included).
  ASSERT_EQ(admin("POST", "/admin/faults",
                  R"({"stage":"prefill","kind":"delay","delay_ms":2000,"class":"low"})")
                .status,
            201);
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(served_by(R"(,"model":"v1")"), "v1");
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([this] {
      for (int i = 0; i < 3; ++i)
        EXPECT_EQ(served_by(R"(,"model":"v2","priority":"low")"), "v2");
    });
  }
  for (std::thread& client : clients)
    client.join();
  json::value routes;
  for (int i = 0; i < 1000; ++i) {  // the watch looks every 20 ms
    routes = json::parse(admin("GET", "/admin/routes").body);
    if (routes.at("deployments").at("default").at("weights").as_object().size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const json::object& weights = routes.at("deployments").at("default").at("weights").as_object();
  ASSERT_EQ(weights.size(), 1u) << routes;  // back to {"v1": 100}
  EXPECT_EQ(weights.at("v1").as_int64(), 100);
  const json::array& history = routes.at("history").as_array();
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[2].at("action").as_string(), "rollback");
  const std::string by(history[2].at("by").as_string());
  EXPECT_EQ(by.rfind("automatic rollback: version 'v2' ttft_p99", 0), 0u) << by;
  {
    std::lock_guard lock(mutex);
    ASSERT_EQ(alerts.size(), 1u);
    EXPECT_EQ(alerts[0].rfind("default: version 'v2' ttft_p99", 0), 0u) << alerts[0];
  }
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(served_by(""), "v1");
}

TEST_F(ModelRouterTest, TheLoadTesterReportsASplitPerVersion) {
  start();
  ASSERT_EQ(admin("PUT", "/admin/routes/default", R"({"weights":{"v1":50,"v2":50},"sticky":false})")
                .status,
            200);
  bench::BenchOptions options;
  options.url = "http://127.0.0.1:" + std::to_string(server_->port());
  options.workload.prompt_tokens = bench::Distribution::fixed(8);
  options.workload.output_tokens = bench::Distribution::fixed(2);
  options.requests = 20;
  options.concurrency = 2;
  options.request_timeout_s = 60;
  options.progress = false;
  auto record = bench::run_benchmark(options);
  ASSERT_TRUE(record.ok()) << record.error().message;
  const bench::Report report = bench::build_report(*record, options);
  EXPECT_EQ(report.model, "default");  // what it asked for: the deployment
  ASSERT_EQ(report.versions.size(), 2u);
  std::int64_t requests = 0;
  for (const bench::VersionReport& version : report.versions) {
    EXPECT_TRUE(version.name == "v1" || version.name == "v2") << version.name;
    EXPECT_GT(version.ok, 0) << version.name;
    EXPECT_EQ(version.errors, 0) << version.name;
    EXPECT_GT(version.ttft_p99_ms, 0) << version.name;
    EXPECT_GE(version.e2e_p99_ms, version.ttft_p99_ms) << version.name;
    requests += version.requests;
  }
  EXPECT_EQ(requests, 20);
  // The server counted the same requests per version.
  const boost::json::value stats = boost::json::parse(get("/v1/stats"));
  for (const boost::json::value& version : stats.at("versions").as_array()) {
    const auto name = std::string(version.at("name").as_string());
    for (const bench::VersionReport& seen : report.versions) {
      if (seen.name == name) {
        EXPECT_EQ(version.at("requests").as_int64(), seen.requests) << name;
      }
    }
  }
}

}  // namespace
}  // namespace supportd
