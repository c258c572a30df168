// A blocking WebSocket client for tests (Beast's, behind this header), whose every step is
// bounded: each runs as an asynchronous operation under the TCP stream's 20 s expiry (which
// synchronous calls would ignore), so a server that never answers fails the test in seconds
// instead of hanging it. Every failure throws boost::system::system_error.
// Thread-safety: one thread at a time per client.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace supportd::testing {

class WebSocketClient {
 public:
  // Connects to 127.0.0.1:port and upgrades `target` (e.g. "/v1/ws?session=..."), with
  // `headers` added to the handshake (e.g. a traceparent).
  WebSocketClient(std::uint16_t port, const std::string& target,
                  const std::vector<std::pair<std::string, std::string>>& headers = {});
  ~WebSocketClient();
  WebSocketClient(const WebSocketClient&) = delete;
  WebSocketClient& operator=(const WebSocketClient&) = delete;

  // A field of the server's answer to the upgrade (its 101), or empty.
  std::string handshake_header(const std::string& name) const;

  void send(const std::string& text);
  // The next message as JSON; throws when nothing comes within 20 s.
  boost::json::value receive();
  // Messages until one whose "type" is `type` arrives (that one included, last); at most 1000.
  std::vector<boost::json::value> receive_until(const std::string& type);
  // The close code the server sent, after a read failed because it closed.
  int close_code() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace supportd::testing
