// `supportd serve --tls-cert FILE --tls-key FILE` through the built binary, with a certificate the
// test makes: files that cannot serve stop it before anything starts (exit 2, naming the file),
// from the flags or the config file's [http] table; a server on good files answers a plain
// request, streams a chat completion and carries the desk's WebSocket over TLS, tells a plain
// HTTP client to use https, and keeps serving.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "command_line.h"
#include "http_client.h"
#include "serve_process.h"
#include "supportd_command.h"
#include "test_model.h"
#include "tls_client.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::TlsClient;

class ServeTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { certificates_ = new testing::TestCertificates(); }
  static void TearDownTestSuite() { delete certificates_; }

  static inline testing::TestCertificates* certificates_ = nullptr;
};

TEST_F(ServeTls, FilesThatCannotServeStopItBeforeAnythingStarts) {
  const std::string missing = (certificates_->directory / "missing.key").string();
  const auto no_key = testing::run_supportd(
      {"serve", "--tls-cert", certificates_->server.certificate_file, "--tls-key", missing});
  EXPECT_EQ(no_key.exit_code, 2) << no_key.err;
  EXPECT_NE(no_key.err.find("TLS key " + missing + ": cannot be read"), std::string::npos)
      << no_key.err;

  const auto mismatched =
      testing::run_supportd({"serve", "--tls-cert", certificates_->server.certificate_file,
                             "--tls-key", certificates_->other.key_file});
  EXPECT_EQ(mismatched.exit_code, 2) << mismatched.err;
  EXPECT_NE(mismatched.err.find("TLS key " + certificates_->other.key_file +
                                " does not match the certificate " +
                                certificates_->server.certificate_file),
            std::string::npos)
      << mismatched.err;

  const auto alone =
      testing::run_supportd({"serve", "--tls-cert", certificates_->server.certificate_file});
  EXPECT_EQ(alone.exit_code, 2) << alone.err;
  EXPECT_NE(alone.err.find("--tls-cert needs --tls-key"), std::string::npos) << alone.err;

  // The same settings in the config file's [http] table.
  const testing::ConfigFile config("[http]\ntls-cert = \"" + certificates_->other.certificate_file +
                                   "\"\ntls-key = \"" + certificates_->server.key_file + "\"\n");
  const auto from_file = testing::run_supportd({"serve", "--config", config.path()});
  EXPECT_EQ(from_file.exit_code, 2) << from_file.err;
  EXPECT_NE(from_file.err.find("TLS key " + certificates_->server.key_file + " does not match"),
            std::string::npos)
      << from_file.err;
}

TEST_F(ServeTls, ServesRequestsStreamsAndWebSocketsOverTls) {
  const std::string cert = certificates_->server.certificate_file;
  testing::ServeProcess server({"--model", testing::synthesized_model(), "--encoder", "off",
                                "--tls-cert", cert, "--tls-key", certificates_->server.key_file},
                               "info");
  std::string why;
  ASSERT_TRUE(server.wait_ready(why, 120, [&cert](std::uint16_t port) {
    try {
      return TlsClient(port, cert).request("GET", "/ready").status;
    } catch (const std::exception&) {
      return 0;  // not listening yet
    }
  })) << why;
  EXPECT_NE(server.log().find("listening on https://"), std::string::npos) << server.log();

  TlsClient client(server.port(), cert);
  const auto health = client.request("GET", "/health");
  EXPECT_EQ(health.status, 200) << health.body;

  // A streamed chat completion, of the model the server lists.
  const auto models = client.request("GET", "/v1/models");
  ASSERT_EQ(models.status, 200) << models.body;
  const json::value model = json::parse(models.body).at("data").at(0).at("id");
  const std::string body = json::serialize(json::object{
      {"model", model},
      {"messages", json::array{json::object{{"role", "user"}, {"content", "Hello there"}}}},
      {"max_tokens", 8},
      {"temperature", 0},
      {"ignore_eos", true},
      {"stream", true}});
  const auto streamed = client.request("POST", "/v1/chat/completions", body);
  ASSERT_EQ(streamed.status, 200) << streamed.body;
  EXPECT_EQ(streamed.header("content-type"), "text/event-stream");
  const std::vector<std::string> events = testing::sse_data(streamed.body);
  ASSERT_GE(events.size(), 3u) << streamed.body;
  EXPECT_EQ(events.back(), "[DONE]");
  EXPECT_EQ(json::parse(events.front()).at("object"), json::value("chat.completion.chunk"));

  // The desk's WebSocket: a session started over HTTPS, a message answered over WSS.
  const auto started = client.request("POST", "/v1/sessions", R"({"user": "tess"})");
  ASSERT_EQ(started.status, 201) << started.body;
  const std::string session(json::parse(started.body).at("session").as_string());
  TlsClient socket(server.port(), cert);
  socket.upgrade("/v1/ws?session=" + session);
  socket.send(R"({"type": "message", "text": "Where is my parcel?"})");
  bool done = false;
  for (int i = 0; i < 100 && !done; ++i) {
    const json::value event = json::parse(socket.receive());
    ASSERT_NE(event.at("type"), json::value("error")) << json::serialize(event);
    if (event.at("type") == json::value("done")) {
      done = true;
      EXPECT_FALSE(event.at("answer").at("text").as_string().empty());
    }
  }
  EXPECT_TRUE(done);

  // Plain HTTP on the TLS port is told to use https; the server keeps serving.
  const auto plain = testing::http_request(server.port(), "GET", "/health");
  EXPECT_EQ(plain.status, 400) << plain.body;
  EXPECT_NE(plain.body.find("tls_required"), std::string::npos) << plain.body;
  EXPECT_EQ(client.request("GET", "/health").status, 200);
  EXPECT_EQ(TlsClient(server.port(), cert).request("GET", "/ready").status, 200);
}

}  // namespace
}  // namespace supportd
