// The HTTP/1.1 server: Boost.Beast on Asio with C++20 coroutines, one coroutine per
// connection, keep-alive, chunked streaming, limits and timeouts on everything a client
// controls. Handlers see only http::Request / http::Response (message.h).
// Thread-safety: all public methods may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "http/message.h"
#include "http/request_watch.h"
#include "http/tls.h"

namespace supportd::http {

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;  // 0: an ephemeral port (see Server::port)
  TlsFiles tls;               // both files: the port speaks TLS only (HTTPS, WSS); none: plain
  int threads = 1;            // I/O threads
  std::size_t body_limit = 1 << 20;
  std::size_t header_limit = 16 * 1024;
  std::chrono::milliseconds idle_timeout{60000};   // keep-alive wait for the next request
  std::chrono::milliseconds read_timeout{30000};   // one request, from its first byte
  std::chrono::milliseconds write_timeout{30000};  // the client must accept each write in time
  std::size_t max_connections = 10000;
  std::size_t websocket_message_limit = 64 * 1024;  // larger messages close the socket (1009)
  // A streamed answer (server-sent events) or a WebSocket's outgoing messages may run this many
  // bytes ahead of the client; past that the client reads too slowly: the connection is cut
  // (and the request behind a stream cancelled). Producers never wait for a client.
  std::size_t stream_buffer_limit = 1 << 20;
  // Lingering close: after an error that ends the connection before the request was read whole
  // (413, 431, 408, 400, 503), the server stops sending and reads and drops what the client
  // still sends, so that the client reads the answer instead of a reset; until the client
  // closes, or for at most this long and this many bytes.
  std::chrono::milliseconds linger_timeout{5000};
  std::size_t linger_limit = 16 << 20;
  // Called on the errors the server answers before any handler (413, 400 for a malformed
  // request...) with the request's headers as far as they were read; e.g. to add CORS headers.
  std::function<void(const Request& request, Response& response)> label_errors;
  // Watches every request that reaches the handler (tracing); empty: none.
  RequestWatcher watch;
};

class Server {
 public:
  using Handler = std::function<Response(Request&)>;

  Server(ServerOptions options, Handler handler);
  ~Server();  // stops if still running

  // Binds, listens and starts the I/O threads. Errors name the address, or the TLS file that
  // cannot be used (check_tls_files).
  Status start();
  std::uint16_t port() const;

  // First step of a graceful shutdown: no new connections or requests; idle keep-alive
  // connections close; requests in flight continue.
  void stop_accepting();
  // Waits until no request is in flight or `timeout` passes; true when idle.
  bool wait_idle(std::chrono::milliseconds timeout);
  // Closes every connection and joins the I/O threads. Idempotent.
  void stop();

  std::size_t connections() const;
  std::size_t requests_in_flight() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace supportd::http
