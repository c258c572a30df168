// Slow clients. Senders that dribble a head or a body are told 408 and closed when the read
// timeout ends; readers that stop reading a stream (SSE or WebSocket) are cut once what waits
// for them passes the stream buffer limit, and their request cancelled, while the producer
// (the engine, in supportd) never waits on them and everyone else is served.
#include <gtest/gtest.h>

#include <poll.h>

#include "hostile_server.h"

namespace supportd::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::size_t kStreamBufferLimit = 64 * 1024;

void short_read_timeout(http::ServerOptions& options) {
  options.read_timeout = seconds(1);
}

// The write timeout far away, so that only the buffer's bound can cut a slow reader.
void small_stream_buffer(http::ServerOptions& options) {
  options.stream_buffer_limit = kStreamBufferLimit;
  options.write_timeout = std::chrono::minutes(10);
}

bool readable(const Connection& client, milliseconds wait) {
  pollfd p{client.fd(), POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(wait.count())) > 0;
}

// Sends `drip(i)` every 100 ms until the server answers, for a minute at most; true when it did.
bool dribble_until_answered(Connection& client, const std::function<std::string(int)>& drip) {
  for (int i = 0; i < 600; ++i) {
    if (readable(client, milliseconds(100))) return true;
    if (!client.send(drip(i))) return readable(client, milliseconds(0));
  }
  return false;
}

TEST(HttpSlowClients, AHeadDribbledLineByLineIsAnswered408) {
  HostileServer server(short_read_timeout);
  Connection client(server.port());
  ASSERT_TRUE(client.send("GET /echo/slowloris HTTP/1.1\r\nHost: x\r\n"));
  ASSERT_TRUE(dribble_until_answered(client, [](int i) {
    return "X-Drip-" + std::to_string(i) + ": " + std::to_string(i) + "\r\n";
  }));
  expect_json_error(client.read_response(), 408, "request_timeout");
  EXPECT_TRUE(client.closed_by_peer(seconds(30)));
  EXPECT_EQ(health(server.port()), 200);
}

TEST(HttpSlowClients, AHeadThatStallsIsAnswered408) {
  HostileServer server(short_read_timeout);
  Connection client(server.port());
  ASSERT_TRUE(client.send("GET /echo/stalled HTTP/1.1\r\nHo"));
  expect_json_error(client.read_response(seconds(60)), 408, "request_timeout");
  EXPECT_TRUE(client.closed_by_peer(seconds(30)));
}

TEST(HttpSlowClients, ABodyDribbledByteByByteIsAnswered408) {
  HostileServer server(short_read_timeout);
  Connection client(server.port());
  ASSERT_TRUE(client.send(head("POST", "/echo/dribble", "Content-Length: 100000\r\n")));
  ASSERT_TRUE(dribble_until_answered(client, [](int) { return std::string("x"); }));
  expect_json_error(client.read_response(), 408, "request_timeout");
  EXPECT_TRUE(client.closed_by_peer(seconds(30)));
  EXPECT_EQ(health(server.port()), 200);
}

// Slow senders take no thread: while many stall at once, others are served.
TEST(HttpSlowClients, StalledSendersDoNotHoldUpOthers) {
  HostileServer server(short_read_timeout);
  std::vector<std::unique_ptr<Connection>> stalled;
  for (int i = 0; i < 50; ++i) {
    stalled.push_back(std::make_unique<Connection>(server.port()));
    ASSERT_TRUE(stalled.back()->send("POST /echo/stalled HTTP/1.1\r\nHost: x\r\nContent-Le"));
  }
  EXPECT_EQ(health(server.port()), 200);
  for (auto& client : stalled)
    expect_json_error(client->read_response(seconds(60)), 408, "request_timeout");
}

// A client that asks for a stream and then reads nothing (its receive buffer small, as on a
// slow link): the producer writes all it has without waiting, the server cuts the client once
// the unsent bytes pass the limit, cancels the request, and keeps serving.
TEST(HttpSlowClients, AStreamReaderThatStopsReadingIsCutAndItsRequestCancelled) {
  HostileServer server(small_stream_buffer);
  Connection slow(server.port(), 4096);
  const std::size_t pieces = 100000;  // 100 MB offered: far past any buffer
  ASSERT_TRUE(
      slow.send(head("GET", "/stream?piece_bytes=1000&pieces=" + std::to_string(pieces), "")));
  const auto production = server.production(0);
  ASSERT_NE(production, nullptr);
  EXPECT_TRUE(HostileServer::eventually([&] { return production->finished.load(); }))
      << "the producer waited on the slow client";
  EXPECT_TRUE(HostileServer::eventually([&] { return production->cancelled.load(); }))
      << "the stream was not cut";
  EXPECT_EQ(health(server.port()), 200);
  // The slow client finds its connection closed after what reached its socket.
  EXPECT_TRUE(slow.closed_by_peer(seconds(30)));
  EXPECT_TRUE(HostileServer::eventually([&] { return server.server().connections() == 0; }));
}

// The bound is on what waits, not on what is sent: a reader that keeps up gets a stream many
// times the limit, whole.
TEST(HttpSlowClients, AReaderThatKeepsUpGetsAStreamLongerThanTheBuffer) {
  HostileServer server(small_stream_buffer);
  Connection client(server.port());
  const int pieces = 64;  // 64 KiB-sized pieces: 64 times the limit
  ASSERT_TRUE(
      client.send(head("GET",
                       "/stream?paced=1&piece_bytes=" + std::to_string(kStreamBufferLimit - 100) +
                           "&pieces=" + std::to_string(pieces),
                       "")));
  const HttpResult stream = client.read_response(seconds(120));
  EXPECT_EQ(stream.status, 200);
  const auto events = sse_data(stream.body);
  ASSERT_EQ(events.size(), static_cast<std::size_t>(pieces));
  EXPECT_EQ(events.back().substr(0, 3), std::to_string(pieces - 1) + " ");
  EXPECT_FALSE(server.production(0)->cancelled);
}

// The same for a WebSocket whose client stops reading while the server pushes to it.
TEST(HttpSlowClients, AWebSocketReaderThatStopsReadingIsCut) {
  HostileServer server(small_stream_buffer);
  Connection slow(server.port(), 4096);
  const std::size_t pieces = 100000;
  ASSERT_TRUE(slow.send(head("GET", "/ws?piece_bytes=1000&pieces=" + std::to_string(pieces),
                             "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                             "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                             "Sec-WebSocket-Version: 13\r\n")));
  const auto production = server.production(0);
  ASSERT_NE(production, nullptr);
  EXPECT_TRUE(HostileServer::eventually([&] { return production->finished.load(); }))
      << "the producer waited on the slow client";
  EXPECT_TRUE(production->cancelled) << "the socket was not cut";
  EXPECT_TRUE(HostileServer::eventually([&] { return production->socket_closed.load(); }));
  EXPECT_LT(production->bytes_offered.load(), pieces * 1000);
  EXPECT_EQ(health(server.port()), 200);
  EXPECT_TRUE(slow.closed_by_peer(seconds(30)));
}

}  // namespace
}  // namespace supportd::testing
