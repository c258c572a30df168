// One client connection: a coroutine that reads requests, dispatches them and writes the
// answers, whole or streamed. Written once for both streams a connection runs over: plain TCP,
// and TLS over TCP (a handshake first; then the same code). Internal to http/ (includes Asio,
// Beast and OpenSSL's headers).
// Runs on its own strand; other threads reach it only through post().
#pragma once

#include <memory>
#include <optional>
#include <tuple>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "http/reply_stream.h"
#include "http/request_framing.h"
#include "http/server.h"

namespace supportd::http {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

// What a connection runs over.
using PlainStream = beast::tcp_stream;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;

// What the server holds of each connection, whatever its stream. Any thread.
class Link {
 public:
  virtual ~Link() = default;
  // Closes the connection if it is waiting for a request (graceful shutdown).
  virtual void close_if_idle() = 0;
  // Closes the connection now (not a WebSocket's: those end with the I/O threads).
  virtual void close() = 0;
};

// `Stream`: PlainStream or TlsStream (both instantiated in connection.cpp).
template <typename Stream>
class Connection final : public Link, public std::enable_shared_from_this<Connection<Stream>> {
 public:
  Connection(Server::Impl& server, Stream stream);
  ~Connection() override;

  static net::awaitable<void> run(std::shared_ptr<Connection> self);

  void close_if_idle() override;
  void close() override;

 private:
  // TLS only (tls_handshake.cpp): the handshake, under the read timeout; false when the
  // connection should end. A client speaking plain HTTP is answered 400 in plain HTTP, saying
  // to use https.
  net::awaitable<bool> handshake();
  // The TCP socket under the stream; null once the stream went to a WebSocket. Strand only.
  tcp::socket* socket();
  // Reads one request into `request`; false when the connection should end.
  net::awaitable<bool> read_request(Request& request, bool& keep_alive);
  // Reads until buffer_ holds the request's whole head (or more than the header limit, or a
  // bare LF: Beast says what is wrong); `refusal` is set when the head has folded lines.
  net::awaitable<boost::system::error_code> read_head(net::steady_timer& deadline,
                                                      std::optional<Refusal>& refusal);
  // Runs `operation` (a read or write of the request) until `deadline`; a late one is cancelled
  // and yields beast::error::timeout with the socket still open, so that a 408 can be written.
  net::awaitable<std::tuple<boost::system::error_code, std::size_t>> before(
      net::steady_timer& deadline,
      net::awaitable<std::tuple<boost::system::error_code, std::size_t>> operation);
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;
  // Reads into `parser` until `(parser.*done)()`, step by step under `deadline`; the first
  // error, or beast::error::timeout once the deadline has passed.
  net::awaitable<boost::system::error_code> read_until(net::steady_timer& deadline, Parser& parser,
                                                       bool (Parser::*done)() const);
  // `head_only`: the answer to HEAD, its Content-Length that of the body it leaves out.
  // `more`: fields sent after the response's own (a deferred answer's, set on the Response
  // that deferred it).
  net::awaitable<bool> write_response(Response& response, bool keep_alive, bool head_only = false,
                                      const Headers* more = nullptr);
  // Answers a JSON error and ends the connection with a lingering close; `seen` holds the
  // request's headers as far as they were read (ServerOptions::label_errors sees them).
  net::awaitable<bool> write_error(int status, std::string_view message, std::string_view code,
                                   const Request& seen);
  // Stops sending, then reads and drops what the client still sends, until it closes or the
  // linger bounds (ServerOptions::linger_timeout, linger_limit) are reached. `raw`: below TLS
  // (a client that never spoke it).
  net::awaitable<void> linger(bool raw = false);
  // Streams a deferred answer; false when the connection should end.
  // `headers`: set on the deferred Response itself (CORS, say), sent with whatever head follows.
  // `exchange` learns what was written.
  net::awaitable<bool> write_deferred(std::shared_ptr<ReplyStream> reply, bool keep_alive,
                                      const Headers& headers, Exchange& exchange);
  net::awaitable<bool> drain(std::shared_ptr<ReplyStream> reply, bool keep_alive,
                             const Headers& headers, Exchange& exchange);
  net::awaitable<void> watch_peer();
  // Turns this connection into a WebSocket served by `handler`; returns when it closes.
  // `fields`: "Name: value\r\n" lines for the handshake's answer (RequestWatch::write_fields).
  net::awaitable<void> run_websocket(std::shared_ptr<WebSocketHandler> handler,
                                     std::string fields = {});
  // Writes `buffers` under the write timeout; false on failure.
  template <typename Buffers>
  net::awaitable<bool> write_all(const Buffers& buffers);

  Server::Impl& server_;
  Stream stream_;
  beast::flat_buffer buffer_;
  net::steady_timer wake_;
  std::string remote_;
  // The last request as Beast parsed it (a WebSocket upgrade needs it).
  beast::http::request<beast::http::string_body> last_message_;
  bool idle_ = true;       // on the strand: waiting for a request's first byte
  bool upgraded_ = false;  // on the strand: stream_ was handed to a WebSocket
  // The watch of the answer being written (a handler's, or a refusal's while reading), whose
  // fields its head carries; null between answers and without a watcher.
  const RequestWatch* watch_ = nullptr;
};

// Made once, in connection.cpp (run_websocket in websocket_session.cpp, handshake in
// tls_handshake.cpp).
extern template class Connection<PlainStream>;
extern template class Connection<TlsStream>;

}  // namespace supportd::http
