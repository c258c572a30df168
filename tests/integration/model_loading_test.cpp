// Loading a model version at run time (POST /admin/models), in the server, with synthesized
// models: a new version loads and warms up in the background (its engine's warm-up, then a
// check request) while a stream on another version goes on untouched, becomes ready, and then
// serves pinned and split requests; a path with no file is refused with 400 naming "path"; a
// file that is not a model ends failed with the reason and never takes traffic, nor does a
// file whose SHA-256 is not the expected one; the route needs the admin key and names the bad
// field.
#include <gtest/gtest.h>

#include <unistd.h>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "model_router_fixture.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::http_request;
using testing::HttpResult;
using testing::kJson;

class ModelLoadingTest : public testing::ModelRouterFixture {
 protected:
  HttpResult load(const std::string& body) { return admin("POST", "/admin/models", body); }
  // The 400's param for a POST /admin/models body.
  std::string refused_load(const std::string& body) {
    return refused_field(body, "/admin/models", "POST");
  }
  HttpResult pinned(const std::string& version) {
    return http_request(server_->port(), "POST", "/v1/completions",
                        R"({"prompt":"Hi","max_tokens":2,"model":")" + version + "\"}", kJson);
  }
};

TEST_F(ModelLoadingTest, ALoadedVersionWarmsUpThenServesWhileOtherStreamsGoOn) {
  serve_config_.engine.warmup = true;  // the engine's own warm-up, as serve's default
  start();
  HttpResult stream;
  std::thread client = long_stream("v1", stream);  // lasts while v3 loads
  const std::string path = testing::synthesized_model("tiny", "f16", true, 44);
  const HttpResult started = load(R"({"name":"v3","path":")" + path + R"(","by":"ana"})");
  ASSERT_EQ(started.status, 202) << started.body;
  EXPECT_EQ(json::parse(started.body).at("state").as_string(), "loading");
  const std::string state = std::string(version_json("v3").at("state").as_string());
  EXPECT_TRUE(state == "loading" || state == "warming" || state == "ready") << state;
  EXPECT_EQ(wait_for_state("v3", "ready"), "ready");
  client.join();
  ASSERT_EQ(stream.status, 200);
  const std::vector<std::string> events = testing::sse_data(stream.body);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back(), "[DONE]");
  EXPECT_NE(stream.body.find(R"("finish_reason":"length")"), std::string::npos);  // not cut
  ASSERT_EQ(admin("DELETE", "/admin/faults").status, 200);

  const json::value v3 = version_json("v3");
  EXPECT_EQ(v3.at("sha256").as_string().size(), 64u);
  EXPECT_EQ(std::string(v3.at("path").as_string()), path);
  EXPECT_GT(v3.at("load_ms").as_double(), 0);
  EXPECT_GT(v3.at("warmup_ms").as_double(), 0);
  const HttpResult answer = pinned("v3");
  ASSERT_EQ(answer.status, 200) << answer.body;
  EXPECT_EQ(json::parse(answer.body).at("model").as_string(), "v3");
  ASSERT_EQ(admin("PUT", "/admin/routes/default", R"({"weights":{"v1":0,"v3":100}})").status, 200);
  EXPECT_EQ(served_by(""), "v3");
  EXPECT_EQ(in_flight("v1"), 0);
}

TEST_F(ModelLoadingTest, ABadPathIsRefusedAndAFileThatIsNotAModelFails) {
  start();
  EXPECT_EQ(refused_load(R"({"name":"v4","path":"/nonexistent/model.gguf"})"), "path");
  const std::filesystem::path junk = std::filesystem::temp_directory_path() /
                                     ("supportd-not-a-model-" + std::to_string(getpid()) + ".gguf");
  std::ofstream(junk) << "this is not a GGUF file\n";
  const HttpResult started = load(R"({"name":"v4","path":")" + junk.string() + "\"}");
  ASSERT_EQ(started.status, 202) << started.body;
  EXPECT_EQ(wait_for_state("v4", "failed"), "failed");
  std::filesystem::remove(junk);
  const json::value v4 = version_json("v4");
  EXPECT_FALSE(v4.at("reason").as_string().empty());
  const HttpResult refused = pinned("v4");
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_NE(refused.body.find("failed"), std::string::npos) << refused.body;
  EXPECT_EQ(refused_field(R"({"weights":{"v1":50,"v4":50}})"), "weights.v4");
  EXPECT_EQ(served_by(""), "v1");
  // A failed version can be taken away.
  ASSERT_EQ(admin("DELETE", "/admin/models/v4?timeout_s=0").status, 202);
  EXPECT_EQ(wait_for_state("v4", "gone"), "gone");
}

TEST_F(ModelLoadingTest, AFileWithoutTheExpectedSha256NeverTakesTraffic) {
  start();
  const std::string path = testing::synthesized_model("tiny", "f16", true, 44);
  const HttpResult started =
      load(R"({"name":"v5","path":")" + path + R"(","sha256":")" + std::string(64, 'a') + "\"}");
  ASSERT_EQ(started.status, 202) << started.body;
  EXPECT_EQ(wait_for_state("v5", "failed"), "failed");
  const json::value v5 = version_json("v5");
  EXPECT_NE(std::string(v5.at("reason").as_string()).find("SHA-256 mismatch"), std::string::npos)
      << v5;
  EXPECT_EQ(pinned("v5").status, 503);
  EXPECT_EQ(refused_field(R"({"weights":{"v1":50,"v5":50}})"), "weights.v5");
  EXPECT_EQ(refused_field(R"({"weights":{"v1":100},"shadow":{"version":"v5","percent":10}})"),
            "shadow.version");
}

TEST_F(ModelLoadingTest, LoadingNeedsTheAdminKeyAndNamesTheBadField) {
  start();
  const std::string path = testing::synthesized_model("tiny", "f16", true, 44);
  const HttpResult anonymous = http_request(server_->port(), "POST", "/admin/models",
                                            R"({"name":"v6","path":")" + path + "\"}", kJson);
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_TRUE(version_json("v6").is_null());
  const std::string at = R"(,"path":")" + path + "\"";
  EXPECT_EQ(refused_load(R"({"name":"bad name!")" + at + "}"), "name");
  EXPECT_EQ(refused_load(R"({"name":"v1")" + at + "}"), "name");       // used
  EXPECT_EQ(refused_load(R"({"name":"default")" + at + "}"), "name");  // a deployment's
  EXPECT_EQ(refused_load(R"({"name":"v6"})"), "path");
  EXPECT_EQ(refused_load(R"({"name":"v6","sha256":"xyz")" + at + "}"), "sha256");
  EXPECT_EQ(refused_load(R"({"name":"v6","parallel":0)" + at + "}"), "parallel");
  // Past int64's range (parsed as a uint64): refused by name, not thrown as a 500.
  EXPECT_EQ(refused_load(R"({"name":"v6","parallel":18446744073709551615)" + at + "}"), "parallel");
  EXPECT_EQ(refused_load(R"({"name":"v6","ctx_size":16)" + at + "}"), "ctx_size");
  EXPECT_EQ(refused_load(R"({"name":"v6","threads":4)" + at + "}"), "threads");
  EXPECT_EQ(refused_load(R"({"path":")" + path + "\"}"), "name");
  EXPECT_TRUE(version_json("v6").is_null());
}

}  // namespace
}  // namespace supportd
