// WebSocket endpoints, without Beast in sight: a route answers an upgrade request with a
// Response whose `websocket` is a WebSocketHandler; the connection then becomes a WebSocket
// and calls the handler for each text message. The handler talks back through WebSocketPeer.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace supportd::http {

// The client end, as the application sees it. Thread-safety: send() and close() may be called
// from any thread; messages are written in the order they were sent.
class WebSocketPeer {
 public:
  virtual ~WebSocketPeer() = default;
  // Queues a text message (must be valid UTF-8). Ignored once the socket is closed.
  virtual void send(std::string text) = 0;
  // Closes the socket after the queued messages, with a reason the client sees.
  virtual void close(std::string reason) = 0;
  virtual bool closed() const = 0;
};

// What an endpoint does with its socket. Called on the connection's strand, one call at a
// time; implementations must not block.
class WebSocketHandler {
 public:
  virtual ~WebSocketHandler() = default;
  virtual void on_open(std::shared_ptr<WebSocketPeer> peer) = 0;
  // A whole text message. Binary messages, invalid UTF-8 and messages over the size limit
  // never reach here: the connection answers them with a close frame saying why.
  virtual void on_message(std::string_view text) = 0;
  // The socket closed (either side, or an error). The last call.
  virtual void on_close() = 0;
};

}  // namespace supportd::http
