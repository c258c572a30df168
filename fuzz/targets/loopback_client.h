// What the fuzz targets that drive supportd's own server share: starting it so that it outlives
// nothing it logs through, a blocking client on a loopback port whose reads give up after 10 s
// (far past the server's own timeouts, so a hang is a failure), and the stand-in for the desk's
// customer socket that answers each message as the real one decodes it (api/desk_requests.h).
//
// Signals: libFuzzer's -timeout arms SIGALRM every timeout/2 + 1 s (11 s under fuzz/run's
// -timeout=20), without SA_RESTART, and the main thread, this client, usually takes it. A call it
// interrupts fails with EINTR; each one here is resumed (a read for what is left of its 10 s), so
// that the alarm is never taken for the server's fault.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "api/desk_requests.h"
#include "fuzz_check.h"
#include "http/server.h"
#include "http/websocket.h"

namespace supportd::fuzz {

// How long a read waits for the server to send or close.
constexpr std::chrono::seconds kServerBound{10};

// Starts a server on a loopback port for a fixture that a function-local static owns. Such a
// fixture is destroyed at exit, its server stopped and its threads joined, only after every static
// constructed later than it; spdlog's registry, which those threads log through, is therefore
// made here first, so that it outlives them (a connection still lingering when libFuzzer exits
// would otherwise read a freed logger).
inline std::unique_ptr<http::Server> start_server(http::ServerOptions options,
                                                  http::Server::Handler handler) {
  spdlog::default_logger_raw();
  auto server = std::make_unique<http::Server>(std::move(options), std::move(handler));
  require(server->start().ok(), "the server starts on a loopback port");
  return server;
}

// Waits until `fd` is readable (data, end of stream or an error to read) or `deadline` passes;
// false then. Signals do not shorten the wait.
inline bool readable_by(int fd, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<std::int64_t>(left.count(), 0)));
    if (ready >= 0) return ready > 0;
    require(errno == EINTR, "the client can poll its socket");
  }
}

// A socket connected to 127.0.0.1:port. Thousands of connections a minute can use up the
// machine's ephemeral ports for a moment (EADDRNOTAVAIL, while closed ones wait out TIME-WAIT
// beside other tests' connections): a client waits and tries again, for up to 2 s; any other
// failure (the server not listening) fails the run. A connect a signal interrupts goes on in
// the background: the client waits for it to end.
inline int connect_loopback(std::uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int attempt = 0;; ++attempt) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    require(fd >= 0, "a client socket opens");
    int error =
        ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 ? 0 : errno;
    if (error == EINTR) {
      pollfd p{fd, POLLOUT, 0};
      while (::poll(&p, 1, -1) < 0)
        require(errno == EINTR, "the client can poll its socket");
      socklen_t length = sizeof error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    }
    if (error == 0) return fd;
    ::close(fd);
    require((error == EADDRNOTAVAIL || error == EAGAIN) && attempt < 200, "the client connects");
    ::usleep(10000);
  }
}

// Sends what it can of `bytes`; the server may close early (it refused them): fine.
inline void send_all(int fd, std::string_view bytes) {
  for (std::size_t sent = 0; sent < bytes.size();) {
    const ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
}

// Appends what arrives to `received` until `enough` says so or the server closes; a read that
// waits kServerBound for nothing breaks the property that the server closes within its
// timeouts.
template <typename Enough>
void receive(int fd, std::string& received, Enough enough) {
  char buffer[16384];
  while (!enough(received)) {
    require(readable_by(fd, std::chrono::steady_clock::now() + kServerBound),
            "the server closes within its timeouts");
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) require(errno == ECONNRESET, "the client reads what the server sent");
    if (n <= 0) return;
    received.append(buffer, static_cast<std::size_t>(n));
  }
}

// Everything the server sends until it closes.
inline std::string receive_until_closed(int fd) {
  std::string received;
  receive(fd, received, [](const std::string&) { return false; });
  return received;
}

// The desk socket's decoding, answering each message as the customer socket would: a pong, the
// text back as JSON, or a close saying why it was refused. Counts the sockets opened and not yet
// told on_close, in all servers of the process.
class SocketEcho final : public http::WebSocketHandler {
 public:
  static int open_sockets() { return open_.load(); }

  void on_open(std::shared_ptr<http::WebSocketPeer> peer) override {
    ++open_;
    peer_ = std::move(peer);
  }
  void on_message(std::string_view text) override {
    const api::SocketMessage message = api::decode_socket_message(text);
    if (message.kind == api::SocketMessage::Kind::kPing) peer_->send(R"({"type":"pong"})");
    if (message.kind == api::SocketMessage::Kind::kRefused) peer_->close(message.text);
    if (message.kind == api::SocketMessage::Kind::kAsk)
      peer_->send(boost::json::serialize(boost::json::object{{"text", message.text}}));
  }
  void on_close() override {
    peer_.reset();
    --open_;
  }

 private:
  static inline std::atomic<int> open_{0};
  std::shared_ptr<http::WebSocketPeer> peer_;
};

}  // namespace supportd::fuzz
