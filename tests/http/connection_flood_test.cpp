// A flood of connections past max_connections: each one over the limit reads a JSON 503 (it is
// answered, not dropped), the connections already open keep being served, and a place freed
// is taken by the next client; a stopped server's port refuses.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include <gtest/gtest.h>

#include "hostile_server.h"

namespace supportd::testing {
namespace {

using std::chrono::seconds;

constexpr std::size_t kLimit = 4;

TEST(HttpConnectionFlood, ConnectionsPastTheLimitRead503AndTheOthersAreServed) {
  HostileServer server([](http::ServerOptions& options) { options.max_connections = kLimit; });
  std::vector<std::unique_ptr<Connection>> held;
  for (std::size_t i = 0; i < kLimit; ++i) {
    held.push_back(std::make_unique<Connection>(server.port()));
    ASSERT_TRUE(held.back()->send(head("GET", "/echo/held", "")));
    ASSERT_EQ(held.back()->read_response().status, 200);  // kept alive: the place stays taken
  }
  // The flood: every one is told why, with a request in flight as a plain client has.
  for (int i = 0; i < 50; ++i) {
    SCOPED_TRACE(i);
    Connection extra(server.port());
    ASSERT_TRUE(extra.send(head("POST", "/echo/flood", "Content-Length: 10000\r\n") +
                           std::string(10000, 'x')));
    expect_json_error(extra.read_response(), 503, "overloaded");
    EXPECT_TRUE(extra.closed_by_peer(seconds(30)));
  }
  // Those inside are still served.
  for (auto& connection : held) {
    ASSERT_TRUE(connection->send(head("GET", "/echo/still", "")));
    EXPECT_EQ(connection->read_response().body, R"({"path":"/echo/still","body_bytes":0})");
  }
  // A place freed (once the refused ones have gone too) is the next client's.
  held.pop_back();
  ASSERT_TRUE(
      HostileServer::eventually([&] { return server.server().connections() == kLimit - 1; }));
  EXPECT_EQ(health(server.port()), 200);
}

// Once stop() returns, the port refuses: nothing is left listening that nobody serves.
TEST(HttpConnectionFlood, AStoppedServerRefusesNewConnectionsAtOnce) {
  HostileServer server([](http::ServerOptions&) {});
  const std::uint16_t port = server.port();
  ASSERT_EQ(health(port), 200);
  server.server().stop();
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int connected = ::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int error = errno;
  ::close(fd);
  EXPECT_EQ(connected, -1) << "a stopped server's port took a connection";
  EXPECT_EQ(error, ECONNREFUSED);
}

}  // namespace
}  // namespace supportd::testing
