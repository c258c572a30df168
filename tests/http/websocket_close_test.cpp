// A WebSocket the server closes while its read of the client's frames fails: the close is
// bounded by the write timeout, and the connection then ends, its handler told on_close.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include "hostile_server.h"

namespace supportd::testing {
namespace {

using std::chrono::seconds;

// fuzz/corpus/websocket_frames/close-during-failed-read as the frames the target builds from it:
// a text message in two fragments around a ping, which the handler refuses (a close the writer
// sends), then a fragment, a ping (the reader answers it) and an unmasked frame, a protocol
// error the reader must answer with its own close. The close holds Beast's write lock waiting
// for the read, the read waits for the write lock: only the bound ends them.
std::string close_racing_a_failed_read() {
  const unsigned char frames[] = {0x01, 0x88, 0x37, 0xfa, 0x21, 0x3d, 0x4c, 0xd8, 0x55, 0x44, 0x47,
                                  0x9f, 0x03, 0x07, 0x89, 0x82, 0x37, 0xfa, 0x21, 0x3d, 0x5f, 0x93,
                                  0x80, 0x87, 0x37, 0xfa, 0x21, 0x3d, 0x15, 0x8a, 0x48, 0x42, 0x59,
                                  0x9d, 0x20, 0x01, 0x88, 0x30, 0xfa, 0x21, 0x3d, 0x4b, 0xd8, 0x55,
                                  0x44, 0x40, 0x9f, 0x03, 0x07, 0x89, 0x82, 0x37, 0x40, 0x00, 0x00,
                                  0x37, 0x40, 0x00, 0x00, 0x00, 0x80, 0x21, 0x22, 0x7d, 0x00};
  return std::string(reinterpret_cast<const char*>(frames), sizeof frames);
}

TEST(HttpWebSocketClose, ACloseRacingAFailedReadEndsTheConnectionAtTheBound) {
  HostileServer server([](http::ServerOptions& options) { options.write_timeout = seconds(1); });
  Connection client(server.port());
  ASSERT_TRUE(client.send(head("GET", "/ws?pieces=0&close_on_message=1",
                               "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                               "Sec-WebSocket-Version: 13\r\n")));
  const auto production = server.production(0);
  ASSERT_NE(production, nullptr);
  ASSERT_EQ(client.read_some(std::chrono::milliseconds(500)).rfind("HTTP/1.1 101 ", 0), 0u);
  ASSERT_TRUE(client.send(close_racing_a_failed_read()));
  ::shutdown(client.fd(), SHUT_WR);
  EXPECT_TRUE(client.closed_by_peer(seconds(10)));
  EXPECT_TRUE(
      HostileServer::eventually([&] { return production->socket_closed.load(); }, seconds(10)))
      << "the handler was never told on_close: the connection stayed";
  EXPECT_TRUE(HostileServer::eventually([&] { return server.server().connections() == 0; }));
}

}  // namespace
}  // namespace supportd::testing
