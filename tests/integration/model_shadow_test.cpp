// Shadow traffic and per-version figures, in the server, with synthesized models (v1 and v3:
// the same file, so greedy answers agree; v2 another): copies of a deployment's requests run
// on the shadow version and are compared with production's answer (exact and word overlap),
// recorded in GET /admin/models and /metrics; a shadow that fails (its engine stopped) or is
// slow (a drill's decode delay on the class "low", which only shadows have) changes nothing of
// the caller's answers; a full shadow queue drops copies and counts them; bad shadow input is
// answered 400 naming the field; a copy computes only while no caller's request is in any
// engine, and one that finds no gap expires (counted) and frees its place. Per version: requests
// and TTFT / ITL / E2E percentiles in /metrics (version="..."), /v1/stats and /admin/models.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "model_router_fixture.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::http_request;
using testing::HttpResult;
using testing::kJson;

class ModelShadowTest : public testing::ModelRouterFixture {
 protected:
  // Greedy completions of distinct prompts, from "default" or pinned to `model`: their texts,
  // in order. Two engines of one file that see the same requests in the same order answer
  // them alike (the same prefix-cache history), so a pinned twin of v1 gives v1's answers.
  // With `shadow`, each request waits until that version's copy of it was compared (so both
  // engines see the requests one at a time).
  std::vector<std::string> answers(int count, const std::string& model = {},
                                   const std::string& shadow = {}) {
    std::vector<std::string> texts;
    for (int i = 0; i < count; ++i) {
      const std::string pin = model.empty() ? std::string() : R"(,"model":")" + model + R"(")";
      const std::string body = R"({"prompt":"Question )" + std::to_string(i) +
                               R"(: where is my parcel?","max_tokens":4,"temperature":0)" + pin +
                               "}";
      const HttpResult reply =
          http_request(server_->port(), "POST", "/v1/completions", body, kJson);
      EXPECT_EQ(reply.status, 200) << reply.body;
      if (reply.status != 200) return texts;
      const json::value answer = json::parse(reply.body);
      EXPECT_EQ(std::string(answer.at("model").as_string()), model.empty() ? "v1" : model);
      texts.emplace_back(answer.at("choices").as_array()[0].at("text").as_string());
      if (!shadow.empty())
        wait_for_shadow(shadow, "compared", [i](std::int64_t n) { return n >= i + 1; });
    }
    return texts;
  }
  // Arms a drill fault: every decode step of the class `klass` `ms` milliseconds longer.
  void delay_decode(int ms, const std::string& klass) {
    const HttpResult armed = admin("POST", "/admin/faults",
                                   R"({"stage":"decode","kind":"delay","delay_ms":)" +
                                       std::to_string(ms) + R"(,"class":")" + klass + R"("})");
    ASSERT_EQ(armed.status, 201) << armed.body;
  }
  void shadow_onto(const std::string& version, int percent) {
    const HttpResult set = admin("PUT", "/admin/routes/default",
                                 R"({"weights":{"v1":100},"shadow":{"version":")" + version +
                                     R"(","percent":)" + std::to_string(percent) + "}}");
    ASSERT_EQ(set.status, 200) << set.body;
  }
};

TEST_F(ModelShadowTest, CopiesAreComparedWithProductionAndRecorded) {
  add("v3", testing::synthesized_model("tiny", "f16", true, 42), "");  // v1's file
  start();
  shadow_onto("v3", 100);
  const json::value routes = json::parse(admin("GET", "/admin/routes").body);
  EXPECT_EQ(routes.at("deployments").at("default").at("shadow").at("version").as_string(), "v3");
  EXPECT_EQ(routes.at("shadow_queue").at("capacity").to_number<std::int64_t>(), 16);
  const std::vector<std::string> texts = answers(3, "", "v3");
  ASSERT_EQ(texts.size(), 3u);
  const json::value v3 = version_json("v3");
  const json::value& shadow = v3.at("shadow");
  EXPECT_EQ(shadow.at("copies").as_int64(), 3);
  EXPECT_EQ(shadow.at("dropped").as_int64(), 0);
  EXPECT_EQ(shadow.at("completed").as_int64(), 3);
  EXPECT_EQ(shadow.at("compared").as_int64(), 3);
  EXPECT_DOUBLE_EQ(shadow.at("exact_match_rate").as_double(), 1.0);  // the same file, greedy
  EXPECT_DOUBLE_EQ(shadow.at("token_overlap").as_double(), 1.0);
  EXPECT_GT(shadow.at("e2e_p50_ms").as_double(), 0);
  EXPECT_EQ(v3.at("requests").as_int64(), 0);  // copies are not its traffic
  EXPECT_EQ(v3.at("shadow_percent").at("default").as_int64(), 100);
  EXPECT_EQ(version_json("v1").at("requests").as_int64(), 3);
  const std::string metrics = get("/metrics");
  EXPECT_NE(metrics.find(R"(supportd_shadow_compared_total{version="v3"} 3)"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find(R"(supportd_shadow_exact_match_ratio{version="v3"} 1)"),
            std::string::npos);
  // A shadow is a version's to keep while it is one: unloading it is refused.
  const HttpResult unload = admin("DELETE", "/admin/models/v3");
  EXPECT_EQ(unload.status, 400) << unload.body;
  // A split without the shadow stops the copies.
  ASSERT_EQ(admin("PUT", "/admin/routes/default", R"({"weights":{"v1":100}})").status, 200);
  answers(1);
  EXPECT_EQ(version_json("v3").at("shadow").at("copies").as_int64(), 3);
}

TEST_F(ModelShadowTest, AFailingShadowChangesNothingForTheCaller) {
  engine::Engine* v3 = add("v3", testing::synthesized_model("tiny", "f16", true, 43), "");
  ASSERT_NE(v3, nullptr);
  add("twin", testing::synthesized_model("tiny", "f16", true, 42), "");  // v1's file
  start();
  const std::vector<std::string> before = answers(3, "twin");  // v1's answers, v1 untouched
  shadow_onto("v3", 100);
  v3->shutdown();  // every copy's submit now fails
  EXPECT_EQ(answers(3), before);
  EXPECT_EQ(wait_for_shadow("v3", "errors", [](std::int64_t n) { return n >= 3; }), 3);
  const json::value v1 = version_json("v1");
  EXPECT_EQ(v1.at("requests").as_int64(), 3);
  EXPECT_EQ(v1.at("errors").as_int64(), 0);
}

TEST_F(ModelShadowTest, ASlowShadowChangesNothingForTheCaller) {
  add("twin", testing::synthesized_model("tiny", "f16", true, 42), "");  // v1's file
  start();
  const std::vector<std::string> before = answers(3, "twin");  // v1's answers, v1 untouched
  // Every decode step of a low-class request 300 ms slower: only shadow copies are low here.
  delay_decode(300, "low");
  shadow_onto("v2", 100);
  EXPECT_EQ(answers(3), before);  // the callers' answers, as without the shadow
  EXPECT_EQ(wait_for_shadow("v2", "completed", [](std::int64_t n) { return n >= 3; }), 3);
  const json::value shadow = version_json("v2").at("shadow");
  EXPECT_EQ(shadow.at("compared").as_int64(), 3);
  EXPECT_EQ(shadow.at("errors").as_int64(), 0);
  EXPECT_EQ(version_json("v1").at("errors").as_int64(), 0);
}

TEST_F(ModelShadowTest, ACopyComputesOnlyOnceNoCallerWaits) {
  start();
  // The caller's answer takes a while: every decode step of its class 40 ms longer (the sleep
  // is outside the step, so another engine could compute meanwhile, if it were allowed to).
  delay_decode(40, "normal");
  shadow_onto("v2", 100);
  const auto started = std::chrono::steady_clock::now();
  const HttpResult reply =
      http_request(server_->port(), "POST", "/v1/completions",
                   R"({"prompt":"Where is my parcel?","max_tokens":12,"ignore_eos":true})", kJson);
  const double caller_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  ASSERT_EQ(reply.status, 200) << reply.body;
  ASSERT_GE(caller_ms, 400);  // eleven delayed decode steps
  EXPECT_EQ(wait_for_shadow("v2", "completed", [](std::int64_t n) { return n >= 1; }), 1);
  // The copy was submitted with the caller's request, but its first token waited for the
  // caller's answer to end.
  const json::value shadow = version_json("v2").at("shadow");
  // (The figure is a histogram's: within 0.83x of the time for one observation; without the
  // gaps it was 0.3x of the caller's time.)
  EXPECT_GE(shadow.at("ttft_p50_ms").as_double(), caller_ms * 0.6) << shadow;
  EXPECT_EQ(shadow.at("dropped").as_int64(), 0);
}

TEST_F(ModelShadowTest, AFullShadowQueueDropsTheCopyAndCountsIt) {
  shadow_limits_ = {1, 1};  // one copy running, one waiting
  start();
  // A copy holds its place for seconds (1.5 s per decode step); the callers' requests do not.
  delay_decode(1500, "low");
  shadow_onto("v2", 100);
  const std::vector<std::string> texts = answers(5);
  EXPECT_EQ(texts.size(), 5u);  // every caller answered
  const json::value shadow = version_json("v2").at("shadow");
  EXPECT_EQ(shadow.at("copies").as_int64() + shadow.at("dropped").as_int64(), 5);
  EXPECT_GE(shadow.at("dropped").as_int64(), 3);  // at most one running and one waiting
  const std::string metrics = get("/metrics");
  EXPECT_NE(metrics.find(R"(supportd_shadow_dropped_total{version="v2"})"), std::string::npos);
}

TEST_F(ModelShadowTest, ACopyThatFindsNoGapExpiresAndGivesItsPlaceBack) {
  // One copy running, one waiting: a copy not ended 1.5 s after its request came is given up.
  shadow_limits_ = {1, 1, std::chrono::milliseconds(1500)};
  start();
  // The caller's request stays in the foreground for at least 2.4 s (60 decode steps, each
  // 40 ms longer): its copy finds no gap in that time.
  delay_decode(40, "normal");
  shadow_onto("v2", 100);
  std::atomic<bool> caller_done{false};
  HttpResult long_reply;
  std::thread caller([&] {
    long_reply = http_request(
        server_->port(), "POST", "/v1/completions",
        R"({"prompt":"Where is my parcel?","max_tokens":60,"ignore_eos":true})", kJson);
    caller_done = true;
  });
  const std::int64_t expired =
      wait_for_shadow("v2", "expired", [](std::int64_t n) { return n >= 1; });
  const bool expired_while_the_caller_ran = !caller_done.load();
  caller.join();
  ASSERT_EQ(long_reply.status, 200) << long_reply.body;
  EXPECT_EQ(expired, 1);
  EXPECT_TRUE(expired_while_the_caller_ran);
  json::value shadow = version_json("v2").at("shadow");
  EXPECT_EQ(shadow.at("completed").as_int64(), 0) << shadow;
  EXPECT_EQ(shadow.at("errors").as_int64(), 0) << shadow;  // given up, not failed

  // Its place is free again: the next request's copy runs in the gap after it and completes
  // (one token: the caller has no delayed decode step, so the copy has nearly its whole age).
  const HttpResult next = http_request(server_->port(), "POST", "/v1/completions",
                                       R"({"prompt":"Where is my parcel?","max_tokens":1})", kJson);
  ASSERT_EQ(next.status, 200) << next.body;
  EXPECT_EQ(wait_for_shadow("v2", "completed", [](std::int64_t n) { return n >= 1; }), 1);
  shadow = version_json("v2").at("shadow");
  EXPECT_EQ(shadow.at("expired").as_int64(), 1) << shadow;
  EXPECT_EQ(json::parse(admin("GET", "/admin/routes").body)
                .at("shadow_queue")
                .at("max_age_ms")
                .as_int64(),
            1500);
  const std::string metrics = get("/metrics");
  EXPECT_NE(metrics.find(R"(supportd_shadow_expired_total{version="v2"} 1)"), std::string::npos)
      << metrics;
}

TEST_F(ModelShadowTest, BadShadowInputIsRefusedNamingTheField) {
  start();
  const auto with_shadow = [](const std::string& shadow) {
    return R"({"weights":{"v1":100},"shadow":)" + shadow + "}";
  };
  EXPECT_EQ(refused_field(with_shadow(R"({"version":"v9","percent":10})")), "shadow.version");
  EXPECT_EQ(refused_field(with_shadow(R"({"version":"v2","percent":101})")), "shadow.percent");
  EXPECT_EQ(refused_field(with_shadow(R"({"version":"v2","percent":-1})")), "shadow.percent");
  EXPECT_EQ(refused_field(with_shadow(R"({"version":"v2","percent":"all"})")), "shadow.percent");
  EXPECT_EQ(refused_field(with_shadow(R"({"version":"v2","percent":2.5})")), "shadow.percent");
  EXPECT_EQ(refused_field(with_shadow(R"({"version":"v2"})")), "shadow.percent");
  EXPECT_EQ(refused_field(with_shadow(R"({"percent":10})")), "shadow.version");
  EXPECT_EQ(refused_field(with_shadow(R"({"version":"v2","percent":10,"speed":1})")),
            "shadow.speed");
  EXPECT_EQ(refused_field(with_shadow("5")), "shadow");
  EXPECT_FALSE(json::parse(admin("GET", "/admin/routes").body)
                   .at("deployments")
                   .at("default")
                   .as_object()
                   .contains("shadow"));  // nothing changed
}

TEST_F(ModelShadowTest, EachVersionsFiguresAreInMetricsStatsAndAdminModels) {
  start();
  answers(2);  // on v1
  const HttpResult stream = http_request(
      server_->port(), "POST", "/v1/completions",
      R"({"prompt":"Hello","max_tokens":4,"stream":true,"model":"v2","ignore_eos":true})", kJson);
  ASSERT_EQ(stream.status, 200) << stream.body;
  const json::value stats = json::parse(get("/v1/stats"));
  std::map<std::string, json::object> versions;
  for (const json::value& version : stats.at("versions").as_array())
    versions[std::string(version.at("name").as_string())] = version.as_object();
  ASSERT_TRUE(versions.contains("v1") && versions.contains("v2")) << stats;
  EXPECT_EQ(versions["v1"].at("requests").as_int64(), 2);
  EXPECT_EQ(versions["v2"].at("requests").as_int64(), 1);
  EXPECT_GT(versions["v1"].at("ttft_p50_ms").as_double(), 0);
  EXPECT_GT(versions["v2"].at("itl_p50_ms").as_double(), 0);  // four tokens: three gaps
  EXPECT_GT(versions["v2"].at("e2e_p99_ms").as_double(), 0);
  EXPECT_EQ(versions["v1"].at("refusals").as_int64(), 0);
  const json::value v2 = version_json("v2");
  EXPECT_EQ(v2.at("requests").as_int64(), 1);
  EXPECT_GT(v2.at("itl_p99_ms").as_double(), 0);
  const std::string metrics = get("/metrics");
  for (const std::string& line :
       {std::string(R"(supportd_version_requests_total{version="v1"} 2)"),
        std::string(R"(supportd_version_requests_total{version="v2"} 1)"),
        std::string(R"(supportd_version_errors_total{version="v1"} 0)"),
        std::string(R"(supportd_version_ready{version="v2"} 1)"),
        std::string(R"(supportd_version_ttft_seconds{version="v1",quantile="0.99"})"),
        std::string(R"(supportd_version_itl_seconds{version="v2",quantile="0.5"})")})
    EXPECT_NE(metrics.find(line), std::string::npos) << line << "\n" << metrics;
}

}  // namespace
}  // namespace supportd
