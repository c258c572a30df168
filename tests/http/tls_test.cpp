// The HTTP server over TLS, in process with the stand-in routes of hostile_server.h and a
// certificate the test makes: a plain request, a stream written by a producer thread and a
// WebSocket pushed to from another thread all work over TLS, with the client checking the
// server's certificate; a client that speaks plain HTTP to the TLS port is told, in plain HTTP,
// to use https, and one that sends garbage is closed, while the server keeps serving. The files
// are checked as the server loads them: each refusal names the file and says what is wrong.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "hostile_server.h"
#include "http/tls.h"
#include "tls_client.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::HostileServer;
using testing::TlsClient;

// The certificates of this test process: the server's, and another one whose key is not its.
class HttpTls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { certificates_ = new testing::TestCertificates(); }
  static void TearDownTestSuite() { delete certificates_; }

  static http::TlsFiles files() {
    return {certificates_->server.certificate_file, certificates_->server.key_file};
  }
  static std::unique_ptr<HostileServer> serve() {
    return std::make_unique<HostileServer>([](http::ServerOptions& o) { o.tls = files(); });
  }
  static std::string cert() { return certificates_->server.certificate_file; }

  static inline testing::TestCertificates* certificates_ = nullptr;
};

TEST_F(HttpTls, ARequestAStreamAndAWebSocketWorkOverTls) {
  const auto server = serve();
  TlsClient client(server->port(), cert());
  const auto echo = client.request("POST", "/echo/hello", std::string(5000, 'b'));
  ASSERT_EQ(echo.status, 200) << echo.body;
  EXPECT_EQ(json::parse(echo.body), json::parse(R"({"path":"/echo/hello","body_bytes":5000})"));

  // A stream of 200 events, on the same connection (keep-alive).
  const auto stream = client.request("GET", "/stream?pieces=200&piece_bytes=500");
  ASSERT_EQ(stream.status, 200);
  EXPECT_EQ(stream.header("content-type"), "text/event-stream");
  const std::vector<std::string> events = testing::sse_data(stream.body);
  ASSERT_EQ(events.size(), 200u);
  for (std::size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(events[i], std::to_string(i) + " " + std::string(500, 'x'));

  TlsClient socket(server->port(), cert());
  socket.upgrade("/ws?pieces=50&piece_bytes=1000");
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(socket.receive(), std::string(1000, 'x'));
  const auto production = server->production(1);
  ASSERT_NE(production, nullptr);
  EXPECT_TRUE(HostileServer::eventually([&] { return production->finished.load(); }));
}

TEST_F(HttpTls, PlainHttpIsToldToUseHttpsAndGarbageIsClosedWhileOthersAreServed) {
  const auto server = serve();
  TlsClient before(server->port(), cert());
  ASSERT_EQ(before.request("GET", "/echo/before").status, 200);

  // A plain request (with a body in flight) reads a JSON 400 in plain HTTP.
  const auto plain =
      testing::http_request(server->port(), "POST", "/echo/plain", std::string(100000, 'p'));
  testing::expect_json_error(plain, 400, "tls_required");
  EXPECT_NE(plain.body.find("https://"), std::string::npos) << plain.body;

  // Bytes that are neither TLS nor HTTP: the connection is closed, nothing is answered.
  testing::Connection garbage(server->port());
  ASSERT_TRUE(garbage.send(std::string("\x16\x03\x01\x00\x05garbage-garbage-garbage", 28)));
  EXPECT_TRUE(garbage.closed_by_peer(std::chrono::seconds(30)));

  // A client that connects and says nothing does not hold the others up.
  testing::Connection silent(server->port());
  TlsClient after(server->port(), cert());
  EXPECT_EQ(after.request("GET", "/echo/after").status, 200);
  EXPECT_EQ(before.request("GET", "/echo/again").status, 200);  // the first client's connection
}

TEST_F(HttpTls, AClientThatTrustsAnotherCertificateIsRefusedByItsHandshake) {
  const auto server = serve();
  EXPECT_THROW(TlsClient(server->port(), certificates_->other.certificate_file),
               boost::system::system_error);
  TlsClient trusting(server->port(), cert());
  EXPECT_EQ(trusting.request("GET", "/echo/trusted").status, 200);
}

TEST_F(HttpTls, FilesThatCannotServeAreRefusedByName) {
  const std::string missing = (certificates_->directory / "missing.crt").string();
  const std::string text = (certificates_->directory / "not-pem.txt").string();
  std::ofstream(text) << "not a certificate\n";
  const auto refusal = [](const http::TlsFiles& given) {
    const Status status = http::check_tls_files(given);
    return status.ok() ? std::string("(accepted)") : status.error().message;
  };
  EXPECT_EQ(refusal({}), "(accepted)");
  EXPECT_EQ(refusal(files()), "(accepted)");

  const std::string no_file = refusal({missing, certificates_->server.key_file});
  EXPECT_NE(no_file.find("TLS certificate " + missing + ": cannot be read (No such file"),
            std::string::npos)
      << no_file;
  const std::string no_key = refusal({cert(), missing});
  EXPECT_NE(no_key.find("TLS key " + missing + ": cannot be read"), std::string::npos) << no_key;
  const std::string not_pem = refusal({text, certificates_->server.key_file});
  EXPECT_NE(not_pem.find("TLS certificate " + text + ": not a PEM certificate"), std::string::npos)
      << not_pem;
  const std::string not_key = refusal({cert(), text});
  EXPECT_NE(not_key.find("TLS key " + text + ": not a PEM private key"), std::string::npos)
      << not_key;
  const std::string other_key = refusal({cert(), certificates_->other.key_file});
  EXPECT_NE(other_key.find("TLS key " + certificates_->other.key_file +
                           " does not match the certificate " + cert()),
            std::string::npos)
      << other_key;
  EXPECT_NE(refusal({cert(), ""}).find("both"), std::string::npos);

  // The server refuses to start on them the same way.
  http::ServerOptions options;
  options.port = 0;
  options.tls = {cert(), certificates_->other.key_file};
  http::Server server(options, [](http::Request&) { return http::Response::json(200, "{}"); });
  const Status started = server.start();
  ASSERT_FALSE(started.ok());
  EXPECT_NE(started.error().message.find("does not match"), std::string::npos);
}

}  // namespace
}  // namespace supportd
