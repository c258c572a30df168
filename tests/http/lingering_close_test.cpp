// Lingering close: a request refused before it was read whole (413, 431, 400) is answered so
// that a plain client, one that sends its whole body before it reads, reads the answer instead
// of a broken pipe or a reset; and the server's reading of what it refuses stops at its bounds.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "hostile_server.h"
#include "test_paths.h"

namespace supportd::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::size_t kBodyLimit = 1 << 20;
// Larger than the two kernels' buffers between client and server hold while the server reads
// nothing (Linux's send buffer grows to 4 MiB by default), so the server must read it for the
// client to finish sending.
constexpr std::size_t kPastTheBuffers = 12 << 20;

void limit_body(http::ServerOptions& options) {
  options.body_limit = kBodyLimit;
  options.header_limit = 8 * 1024;
  options.linger_limit = 64 << 20;
}

std::string post(const std::string& path, std::size_t content_length) {
  return head("POST", path,
              "Content-Type: application/json\r\nContent-Length: " +
                  std::to_string(content_length) + "\r\n");
}

// Sends `piece` again and again, blocking, until a send fails or `most` bytes went; returns the
// bytes sent. A send blocked for 30 s fails with EAGAIN (the server neither reads nor closes).
std::size_t send_until_refused(Connection& client, const std::string& piece, std::size_t most,
                               milliseconds pause = milliseconds(0)) {
  timeval timeout{30, 0};
  setsockopt(client.fd(), SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  std::size_t sent = 0;
  errno = 0;
  while (sent < most && client.send(piece)) {
    sent += piece.size();
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
  }
  return sent;
}

// The case (3 MiB against 1 MiB), and a body the kernels cannot absorb.
TEST(HttpLingeringClose, APlainClientThatSendsTheWholeBodyFirstReadsThe413) {
  HostileServer server(limit_body);
  for (const std::size_t size : {3 * kBodyLimit, kPastTheBuffers}) {
    SCOPED_TRACE(size);
    Connection client(server.port());
    ASSERT_TRUE(client.send(post("/echo/big", size) + std::string(size, 'x')))
        << "the server reset the connection while the body was being sent: "
        << std::strerror(errno);
    expect_json_error(client.read_response(), 413, "request_too_large");
    EXPECT_TRUE(client.closed_by_peer(seconds(30)));  // the answer ended the connection
  }
  EXPECT_EQ(health(server.port()), 200);
}

TEST(HttpLingeringClose, PythonsHttpClientReadsThe413) {
  HostileServer server(limit_body);
  for (const std::size_t size : {3 * kBodyLimit, kPastTheBuffers}) {
    SCOPED_TRACE(size);
    const std::string command = "python3 " + source_dir() + "/tests/http/plain_client.py " +
                                std::to_string(server.port()) + " " + std::to_string(size) +
                                " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string output;
    char chunk[4096];
    while (std::size_t n = std::fread(chunk, 1, sizeof chunk, pipe))
      output.append(chunk, n);
    const int status = ::pclose(pipe);
    ASSERT_EQ(status, 0) << "http.client failed: " << output;
    const std::size_t line_end = output.find('\n');
    HttpResult read;
    read.status = std::atoi(output.substr(0, line_end).c_str());
    read.body = output.substr(line_end + 1);
    expect_json_error(read, 413, "request_too_large");
  }
}

TEST(HttpLingeringClose, AChunkedBodyOverTheLimitIsAnsweredToo) {
  HostileServer server(limit_body);
  Connection client(server.port());
  std::string request = head("POST", "/echo/chunked", "Transfer-Encoding: chunked\r\n");
  const std::string chunk = "10000\r\n" + std::string(0x10000, 'x') + "\r\n";
  for (std::size_t sent = 0; sent < kPastTheBuffers; sent += 0x10000)
    request += chunk;
  ASSERT_TRUE(client.send(request + "0\r\n\r\n")) << std::strerror(errno);
  expect_json_error(client.read_response(), 413, "request_too_large");
}

TEST(HttpLingeringClose, OversizedHeadersWithABodyInFlightAreAnswered431) {
  HostileServer server(limit_body);
  Connection client(server.port());
  const std::string request = post("/echo/headers", kPastTheBuffers);
  const std::string big_field = "X-Big: " + std::string(20000, 'a') + "\r\n";
  ASSERT_TRUE(client.send(request.substr(0, request.size() - 2) + big_field + "\r\n" +
                          std::string(kPastTheBuffers, 'x')))
      << std::strerror(errno);
  expect_json_error(client.read_response(), 431, "headers_too_large");
}

TEST(HttpLingeringClose, AMalformedRequestWithBytesInFlightIsAnswered400) {
  HostileServer server(limit_body);
  Connection client(server.port());
  ASSERT_TRUE(client.send(head("POST", "/echo/malformed", "Content-Length: lots\r\n") +
                          std::string(kPastTheBuffers, 'x')))
      << std::strerror(errno);
  expect_json_error(client.read_response(), 400, "bad_request");
}

// A client that waits for 100 Continue before its body is told 413 at once, never asked for the
// body, and both ends close (the linger ends when the client does).
TEST(HttpLingeringClose, AnExpectContinueOverTheLimitIsRefusedBeforeTheBody) {
  HostileServer server(limit_body);
  Connection client(server.port());
  const std::string request = post("/echo/expect", 3 * kBodyLimit);
  ASSERT_TRUE(client.send(request.substr(0, request.size() - 2) + "Expect: 100-continue\r\n\r\n"));
  const HttpResult answer = client.read_response();
  expect_json_error(answer, 413, "request_too_large");
  EXPECT_TRUE(client.closed_by_peer(seconds(30)));
  client.close();
  EXPECT_TRUE(HostileServer::eventually([&] { return server.server().connections() == 0; }));
}

// The byte bound: a client that never stops sending is cut once the server has dropped
// linger_limit bytes, although the time bound is far away.
TEST(HttpLingeringClose, AClientThatNeverStopsSendingIsCutAfterTheByteBound) {
  HostileServer server([](http::ServerOptions& options) {
    options.body_limit = 1024;
    options.linger_limit = 2 << 20;
    options.linger_timeout = seconds(600);
  });
  Connection client(server.port());
  ASSERT_TRUE(client.send(post("/echo/endless", std::size_t{1} << 40)));
  const std::size_t most = std::size_t{1} << 30;
  const std::size_t sent = send_until_refused(client, std::string(64 * 1024, 'x'), most);
  const int error = errno;
  EXPECT_LT(sent, most);
  EXPECT_TRUE(error == EPIPE || error == ECONNRESET) << std::strerror(error);
  // What was sent: the bound plus what the two kernels buffer, far below what was offered.
  EXPECT_LT(sent, std::size_t{64} << 20);
  EXPECT_EQ(health(server.port()), 200);
}

// The time bound: a client that keeps sending slowly is cut once linger_timeout has passed,
// after it could read the answer.
TEST(HttpLingeringClose, AClientThatKeepsSendingSlowlyIsCutAfterTheTimeBound) {
  HostileServer server([](http::ServerOptions& options) {
    options.body_limit = 1024;
    options.linger_limit = std::size_t{1} << 40;
    options.linger_timeout = seconds(1);
  });
  Connection client(server.port());
  ASSERT_TRUE(client.send(post("/echo/dribble", kBodyLimit)));
  expect_json_error(client.read_response(), 413, "request_too_large");
  const std::size_t most = 1200;  // a minute of it at most
  const std::size_t sent = send_until_refused(client, "x", most, milliseconds(50));
  const int error = errno;
  EXPECT_LT(sent, most) << "the server never closed the connection";
  EXPECT_TRUE(error == EPIPE || error == ECONNRESET) << std::strerror(error);
  EXPECT_EQ(health(server.port()), 200);
}

}  // namespace
}  // namespace supportd::testing
