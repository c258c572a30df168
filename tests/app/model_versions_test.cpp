// Named model versions through the built binary: `supportd model verify --config FILE` exits 0
// when every [[models]] file has its stated SHA-256, 1 on a mismatch (naming the version), 2 on
// bad input (naming the file and line); `supportd serve` with those tables serves every
// version, keeps the mismatched one out of traffic and says so in /ready and /v1/alerts;
// --model NAME=PATH repeated serves them without a config file.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "command_line.h"
#include "http_client.h"
#include "model/fingerprint.h"
#include "serve_process.h"
#include "supportd_command.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::ConfigFile;
using testing::run_supportd;
using testing::ServeProcess;

std::string sha_of(const std::string& path) {
  auto print = model::fingerprint_model(path);
  EXPECT_TRUE(print.ok()) << print.error().message;
  return print.ok() ? print->sha256 : std::string();
}

std::string models_table(const std::string& name, const std::string& path, const std::string& sha) {
  return "[[models]]\nname = \"" + name + "\"\npath = \"" + path + "\"\n" +
         (sha.empty() ? "" : "sha256 = \"" + sha + "\"\n");
}

TEST(ModelVersions, VerifyExitsZeroOnMatchOneOnMismatchTwoOnBadInput) {
  const std::string one = testing::synthesized_model("tiny", "f16", true, 42);
  const std::string two = testing::synthesized_model("tiny", "f16", true, 43);
  const ConfigFile good(models_table("v1", one, sha_of(one)) + models_table("v2", two, ""));
  const auto ok = run_supportd({"model", "verify", "--config", good.path()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("v1: ok"), std::string::npos) << ok.out;

  const ConfigFile swapped(models_table("v1", one, sha_of(two)));
  const auto mismatch = run_supportd({"model", "verify", "--config", swapped.path()});
  EXPECT_EQ(mismatch.exit_code, 1) << mismatch.out << mismatch.err;
  EXPECT_NE(mismatch.out.find("v1: MISMATCH"), std::string::npos) << mismatch.out;

  const ConfigFile bad_sha(models_table("v1", one, sha_of(one)) + models_table("v2", two, "abc"));
  const auto refused = run_supportd({"model", "verify", "--config", bad_sha.path()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(bad_sha.path() + ":8:"), std::string::npos) << refused.err;

  const ConfigFile missing(models_table("v1", one + ".gone", ""));
  const auto absent = run_supportd({"model", "verify", "--config", missing.path()});
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find(missing.path() + ":1:"), std::string::npos) << absent.err;

  const ConfigFile twice(models_table("v1", one, "") + models_table("v1", two, ""));
  EXPECT_EQ(run_supportd({"model", "verify", "--config", twice.path()}).exit_code, 2);
}

TEST(ModelVersions, ServeKeepsAMismatchedVersionOutOfTrafficAndSaysSoInReady) {
  const std::string one = testing::synthesized_model("tiny", "f16", true, 42);
  const std::string two = testing::synthesized_model("tiny", "f16", true, 43);
  const ConfigFile config(models_table("stable", one, sha_of(one)) +
                          models_table("candidate", two, sha_of(one)));
  ServeProcess server(
      {"--config", config.path(), "--encoder", "off", "--ctx-size", "1024", "--parallel", "2"});
  std::string why;
  ASSERT_TRUE(server.wait_ready(why, 300)) << why;  // the demo knowledge base is imported first
  const auto ready = testing::http_request(server.port(), "GET", "/ready");
  const json::value body = json::parse(ready.body);
  EXPECT_EQ(body.at("status").as_string(), "degraded") << ready.body;
  EXPECT_NE(ready.body.find("candidate"), std::string::npos) << ready.body;
  const auto alerts = testing::http_request(server.port(), "GET", "/v1/alerts");
  EXPECT_NE(alerts.body.find("model_version_failed_candidate"), std::string::npos) << alerts.body;
  const auto pinned = testing::http_request(server.port(), "POST", "/v1/completions",
                                            R"({"prompt":"Hi","max_tokens":1,"model":"candidate"})",
                                            {{"Content-Type", "application/json"}});
  EXPECT_EQ(pinned.status, 503) << pinned.body;
  const auto served = testing::http_request(server.port(), "POST", "/v1/completions",
                                            R"({"prompt":"Hi","max_tokens":1})",
                                            {{"Content-Type", "application/json"}});
  ASSERT_EQ(served.status, 200) << served.body;
  EXPECT_EQ(json::parse(served.body).at("model").as_string(), "stable");
}

TEST(ModelVersions, RepeatedModelFlagsServeNamedVersions) {
  const std::string one = testing::synthesized_model("tiny", "f16", true, 42);
  const std::string two = testing::synthesized_model("tiny", "f16", true, 43);
  ServeProcess server({"--model", "a=" + one, "--model", "b=" + two, "--encoder", "off",
                       "--ctx-size", "1024", "--parallel", "2"});
  std::string why;
  ASSERT_TRUE(server.wait_ready(why, 300)) << why;  // the demo knowledge base is imported first
  const auto models = testing::http_request(server.port(), "GET", "/v1/models");
  EXPECT_NE(models.body.find(sha_of(two)), std::string::npos) << models.body;
  const auto pinned = testing::http_request(server.port(), "POST", "/v1/completions",
                                            R"({"prompt":"Hi","max_tokens":1,"model":"b"})",
                                            {{"Content-Type", "application/json"}});
  ASSERT_EQ(pinned.status, 200) << pinned.body;
  EXPECT_EQ(json::parse(pinned.body).at("model").as_string(), "b");
  // A bare path among named ones is refused, naming the flag.
  const auto mixed = run_supportd({"serve", "--model", "a=" + one, "--model", two});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("NAME=PATH"), std::string::npos) << mixed.err;
}

}  // namespace
}  // namespace supportd
