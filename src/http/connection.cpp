// One connection's coroutines: read a request with its limits and timeouts (after the TLS
// handshake, tls_handshake.cpp, over TLS), dispatch it, write the answer whole or drain a
// ReplyStream chunk by chunk, watch for the peer leaving, and hand an upgrade to the WebSocket
// session.
#include "http/connection.h"

#include <spdlog/spdlog.h>
#include <array>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <type_traits>
#include <utility>

#include "http/response_head.h"
#include "http/server_impl.h"

namespace supportd::http {

namespace bhttp = beast::http;
using net::as_tuple;
using net::use_awaitable;

namespace {

template <typename Stream>
constexpr bool kTls = std::is_same_v<Stream, TlsStream>;

// What a streaming connection reads to notice its client leaving: the socket itself (plain), or
// the stream, whose bytes are records to decrypt (TLS).
PlainStream::socket_type& readable(PlainStream& stream) {
  return stream.socket();
}
TlsStream& readable(TlsStream& stream) {
  return stream;
}

// What a request's head says, into `request`: its request line when one was read (method,
// target, the target's path percent-decoded, its query) and its fields (names in lower case).
void take_head(const bhttp::request_header<>& head, Request& request) {
  if (!head.method_string().empty()) {
    request.method = std::string(head.method_string());
    request.target = std::string(head.target());
    const std::size_t question = request.target.find('?');
    request.path = percent_decode(std::string_view(request.target).substr(0, question), false);
    if (question != std::string::npos) request.query = request.target.substr(question + 1);
  }
  for (const auto& field : head)
    request.headers.emplace_back(lower_case(field.name_string()), std::string(field.value()));
}

}  // namespace

template <typename Stream>
Connection<Stream>::Connection(Server::Impl& server, Stream stream)
    : server_(server), stream_(std::move(stream)), wake_(stream_.get_executor()) {
  boost::system::error_code ec;
  const auto endpoint = beast::get_lowest_layer(stream_).socket().remote_endpoint(ec);
  if (!ec) remote_ = endpoint.address().to_string() + ":" + std::to_string(endpoint.port());
}

template <typename Stream>
Connection<Stream>::~Connection() {
  server_.unregister_connection(this);
}

template <typename Stream>
tcp::socket* Connection<Stream>::socket() {
  // A TLS stream handed to a WebSocket is gone (moved from); a plain one stays a closed socket.
  return upgraded_ ? nullptr : &beast::get_lowest_layer(stream_).socket();
}

template <typename Stream>
void Connection<Stream>::close_if_idle() {
  net::post(wake_.get_executor(), [self = this->shared_from_this()] {
    if (self->idle_ && self->socket() != nullptr) {
      boost::system::error_code ec;
      self->socket()->close(ec);
    }
  });
}

template <typename Stream>
void Connection<Stream>::close() {
  net::post(wake_.get_executor(), [self = this->shared_from_this()] {
    boost::system::error_code ec;
    if (self->socket() != nullptr) self->socket()->close(ec);
    self->wake_.cancel();
  });
}

template <typename Stream>
net::awaitable<void> Connection<Stream>::run(std::shared_ptr<Connection> self) {
  try {
    if constexpr (kTls<Stream>) {
      if (!co_await self->handshake()) {
        boost::system::error_code ec;
        self->socket()->close(ec);
        co_return;
      }
    }
    if (self->server_.options.max_connections > 0 &&
        self->server_.open_connections.load() > self->server_.options.max_connections) {
      const Request nothing_read;
      co_await self->write_error(503, "too many connections; try again later", "overloaded",
                                 nothing_read);
      co_return;
    }
    for (;;) {
      Request request;
      bool keep_alive = false;
      if (!co_await self->read_request(request, keep_alive)) break;

      ++self->server_.in_flight;
      auto& server = self->server_;
      std::unique_ptr<RequestWatch> watch =
          server.options.watch ? server.options.watch(request) : nullptr;
      Exchange exchange;
      Response response;
      try {
        response = server.handler(request);
      } catch (const std::exception& e) {
        spdlog::error("http: handler for {} {} threw: {}", request.method, request.path, e.what());
        response = error_response(500, "internal error", "server_error", "internal");
      }
      if (server.draining) keep_alive = false;
      if (response.websocket && request.websocket_upgrade) {
        std::string fields;  // the watch's, for the 101 Beast writes
        if (watch) {
          watch->handled(response);
          watch->write_fields(fields);
          exchange.status = 101;
          exchange.upgraded = exchange.written = true;
          watch->ended(exchange);
          watch.reset();
        }
        --server.in_flight;  // a socket is a connection, not a request in flight
        co_await self->run_websocket(std::move(response.websocket), std::move(fields));
        co_return;
      }
      if (response.websocket) {
        response = error_response(426, "this endpoint needs a WebSocket upgrade",
                                  "invalid_request_error", "upgrade_required");
        response.headers.emplace_back("Upgrade", "websocket");
      }
      const bool head = request.method == "HEAD";
      if (head && response.stream) {
        // Every GET route answers at once; one that streams would have nothing to say to HEAD.
        response.stream->cancel();
        response = error_response(405, "HEAD is not supported on " + request.path,
                                  "invalid_request_error", "method_not_allowed");
      }
      if (watch) watch->handled(response);  // before the first co_await: same thread
      self->watch_ = watch.get();
      bool ok;
      if (response.stream) {
        ok = co_await self->write_deferred(response.stream, keep_alive, response.headers, exchange);
      } else {
        exchange.status = response.status;
        exchange.body_bytes = head ? 0 : response.body.size();
        ok = co_await self->write_response(response, keep_alive, head);
        exchange.written = ok;
      }
      self->watch_ = nullptr;
      if (watch) watch->ended(exchange);
      --server.in_flight;
      if (!ok || !keep_alive) break;
    }
  } catch (const std::exception& e) {
    spdlog::debug("http: connection {} ended: {}", self->remote_, e.what());
  }
  boost::system::error_code ec;
  if (tcp::socket* socket = self->socket()) {
    socket->shutdown(tcp::socket::shutdown_send, ec);
    socket->close(ec);
  }
}

template <typename Stream>
net::awaitable<bool> Connection<Stream>::read_request(Request& request, bool& keep_alive) {
  const auto& options = server_.options;
  // Wait for the first byte of the next request under the (long) idle timeout.
  if (buffer_.size() == 0) {
    idle_ = true;
    if (server_.draining) co_return false;
    beast::get_lowest_layer(stream_).expires_after(options.idle_timeout);
    auto [ec, n] = co_await stream_.async_read_some(buffer_.prepare(8192), as_tuple(use_awaitable));
    idle_ = false;
    if (ec) co_return false;
    buffer_.commit(n);
  }
  idle_ = false;

  // The rest of the request must arrive within the read timeout. The deadline is a timer of its
  // own, not the stream's (whose expiry closes the socket), so that a late client is told 408.
  net::steady_timer deadline(stream_.get_executor(), options.read_timeout);
  beast::get_lowest_layer(stream_).expires_never();
  Parser parser;
  parser.header_limit(static_cast<std::uint32_t>(options.header_limit));
  parser.body_limit(options.body_limit);
  std::optional<Refusal> refusal;
  auto ec = co_await read_head(deadline, refusal);
  if (!ec && !refusal) ec = co_await read_until(deadline, parser, &Parser::is_header_done);
  // The headers as far as they were read, for the errors answered below (their CORS headers).
  // A local, not a temporary in the co_await: GCC 12 destroys such temporaries twice.
  Request seen;
  const auto headers_read = [&parser, &seen]() -> const Request& {
    take_head(parser.get(), seen);
    return seen;
  };
  if (!ec && !refusal) refusal = check_framing(parser.get(), parser.chunked());
  if (refusal) {
    co_await write_error(refusal->status, refusal->message, refusal->code, headers_read());
    co_return false;
  }
  if (!ec && parser.get()[bhttp::field::expect] == "100-continue") {
    static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
    auto write = net::async_write(stream_, net::buffer(kContinue), as_tuple(use_awaitable));
    std::tie(ec, std::ignore) = co_await before(deadline, std::move(write));
  }
  if (!ec) ec = co_await read_until(deadline, parser, &Parser::is_done);
  if (ec) {
    if (ec == bhttp::error::body_limit) {
      co_await write_error(413,
                           "request body is larger than the limit of " +
                               std::to_string(options.body_limit) + " bytes",
                           "request_too_large", headers_read());
    } else if (ec == bhttp::error::header_limit) {
      co_await write_error(431,
                           "request headers are larger than the limit of " +
                               std::to_string(options.header_limit) + " bytes",
                           "headers_too_large", seen);  // never read whole: none
    } else if (ec == beast::error::timeout) {
      co_await write_error(408,
                           "the request did not arrive whole within the read timeout of " +
                               std::to_string(options.read_timeout.count()) + " ms",
                           "request_timeout", headers_read());
    } else if (ec != net::error::eof && ec != bhttp::error::end_of_stream &&
               ec != net::error::connection_reset && ec != net::error::operation_aborted &&
               ec != bhttp::error::partial_message) {
      co_await write_error(400, "malformed HTTP request: " + ec.message(), "bad_request",
                           headers_read());
    }
    co_return false;
  }

  last_message_ = parser.release();
  auto& message = last_message_;
  keep_alive = message.keep_alive();
  request.websocket_upgrade = beast::websocket::is_upgrade(message);
  take_head(message, request);
  if (request.target.empty() || request.target.front() != '/') {
    // The request as read (the parser's message was released into it: headers_read() would
    // find nothing), so that the answer carries its CORS headers and its span its method.
    co_await write_error(400, "request target must be an absolute path", "bad_request", request);
    co_return false;
  }
  request.body = message.body();
  request.remote = remote_;
  co_return true;
}

template <typename Stream>
net::awaitable<boost::system::error_code> Connection<Stream>::read_head(
    net::steady_timer& deadline, std::optional<Refusal>& refusal) {
  std::size_t looked_at = 0;
  for (;;) {
    const std::string_view received(static_cast<const char*>(buffer_.data().data()),
                                    buffer_.size());
    if (head_arrived(received, looked_at)) {
      refusal = check_folding(received);
      co_return boost::system::error_code{};
    }
    if (received.size() > server_.options.header_limit) co_return boost::system::error_code{};
    looked_at = received.size();
    auto read = stream_.async_read_some(buffer_.prepare(8192), as_tuple(use_awaitable));
    auto [ec, n] = co_await before(deadline, std::move(read));
    if (ec) co_return ec;
    buffer_.commit(n);
  }
}

template <typename Stream>
net::awaitable<std::tuple<boost::system::error_code, std::size_t>> Connection<Stream>::before(
    net::steady_timer& deadline,
    net::awaitable<std::tuple<boost::system::error_code, std::size_t>> operation) {
  using namespace net::experimental::awaitable_operators;
  auto result = co_await (std::move(operation) || deadline.async_wait(as_tuple(use_awaitable)));
  if (result.index() == 1)
    co_return std::tuple{make_error_code(beast::error::timeout), std::size_t{0}};
  co_return std::get<0>(result);
}

// One parser step at a time, each under the deadline: a cancellation that arrives between the
// socket reads inside one longer composed read can be lost, and a client dribbling a byte at a
// time would then never be told 408; here the expired timer ends the next step at once.
template <typename Stream>
net::awaitable<boost::system::error_code> Connection<Stream>::read_until(
    net::steady_timer& deadline, Parser& parser, bool (Parser::*done)() const) {
  boost::system::error_code ec;
  while (!ec && !(parser.*done)()) {
    // What has already arrived (usually the whole request, with its first byte) is parsed at
    // once: a round through the timer race costs more than a small request's handling.
    if (buffer_.size() > 0) {
      const std::size_t used = parser.put(buffer_.data(), ec);
      buffer_.consume(used);
      if (ec == bhttp::error::need_more) {
        ec = {};
      } else if (ec || used > 0) {
        continue;
      }
    }
    auto read = bhttp::async_read_some(stream_, buffer_, parser, as_tuple(use_awaitable));
    std::tie(ec, std::ignore) = co_await before(deadline, std::move(read));
  }
  co_return ec;
}

template <typename Stream>
net::awaitable<bool> Connection<Stream>::write_response(Response& response, bool keep_alive,
                                                        bool head_only, const Headers* more) {
  const std::string head = format_response_head({.status = response.status,
                                                 .content_type = response.content_type,
                                                 .fields = &response.headers,
                                                 .more = more,
                                                 .content_length = response.body.size(),
                                                 .keep_alive = keep_alive,
                                                 .watch = watch_});
  beast::get_lowest_layer(stream_).expires_after(server_.options.write_timeout);
  const std::array<net::const_buffer, 2> buffers{
      net::buffer(head), head_only ? net::const_buffer() : net::buffer(response.body)};
  auto [ec, n] = co_await net::async_write(stream_, buffers, as_tuple(use_awaitable));
  co_return !ec;
}

template <typename Stream>
net::awaitable<bool> Connection<Stream>::write_error(int status, std::string_view message,
                                                     std::string_view code, const Request& seen) {
  Response response = error_response(status, message, "invalid_request_error", code);
  if (status == 503) response = error_response(status, message, "server_error", code);
  if (server_.options.label_errors) server_.options.label_errors(seen, response);
  // Watched as every answer is (its span, traceparent): a request that never reached a route.
  Request request = seen;  // the watcher's, alive until ended()
  request.remote = remote_;
  std::unique_ptr<RequestWatch> watch =
      server_.options.watch ? server_.options.watch(request) : nullptr;
  if (watch) watch->handled(response);
  watch_ = watch.get();
  const bool written = co_await write_response(response, false);
  watch_ = nullptr;
  if (watch) {
    Exchange exchange;
    exchange.status = status;
    exchange.written = written;
    exchange.body_bytes = response.body.size();
    watch->ended(exchange);
  }
  if (!written) co_return false;
  // The client may still be sending what this refuses (the rest of a body over the limit, say).
  // Closing with its bytes unread would reset the connection, and the client's kernel would
  // then drop this answer before the client read it.
  co_await linger();
  co_return true;
}

template <typename Stream>
net::awaitable<void> Connection<Stream>::linger(bool raw) {
  const auto& options = server_.options;
  auto& lowest = beast::get_lowest_layer(stream_);
  boost::system::error_code ec;
  lowest.socket().shutdown(tcp::socket::shutdown_send, ec);  // the client sees the answer end
  if (ec) co_return;
  lowest.expires_after(options.linger_timeout);  // the whole linger: on expiry, Beast closes
  std::size_t dropped = buffer_.size();
  buffer_.clear();
  while (dropped < options.linger_limit) {
    auto [read_ec, n] =
        raw ? co_await lowest.async_read_some(buffer_.prepare(16 * 1024), as_tuple(use_awaitable))
            : co_await stream_.async_read_some(buffer_.prepare(16 * 1024), as_tuple(use_awaitable));
    if (read_ec) break;  // the client closed, or the time is up
    dropped += n;        // never committed: dropped
  }
  spdlog::debug("http: lingering close of {} dropped {} bytes", remote_, dropped);
}

template <typename Stream>
template <typename Buffers>
net::awaitable<bool> Connection<Stream>::write_all(const Buffers& buffers) {
  // The write side only: a read is pending.
  beast::get_lowest_layer(stream_).expires_after(server_.options.write_timeout);
  auto [ec, n] = co_await net::async_write(stream_, buffers, as_tuple(use_awaitable));
  co_return !ec;
}

template <typename Stream>
net::awaitable<bool> Connection<Stream>::write_deferred(std::shared_ptr<ReplyStream> reply,
                                                        bool keep_alive, const Headers& headers,
                                                        Exchange& exchange) {
  using namespace net::experimental::awaitable_operators;
  std::weak_ptr<Connection> weak = this->shared_from_this();
  std::weak_ptr<ReplyStream> weak_reply = reply;
  reply->set_buffer_limit(server_.options.stream_buffer_limit);
  reply->set_waker([weak, weak_reply, executor = stream_.get_executor()] {
    net::post(executor, [weak, weak_reply] {
      auto self = weak.lock();
      if (!self) return;
      self->wake_.cancel();
      // A client too slow for the stream: cut it now, even in the middle of a write.
      if (auto reply = weak_reply.lock(); reply && reply->overflowed()) {
        boost::system::error_code ec;
        self->socket()->close(ec);
      }
    });
  });
  beast::get_lowest_layer(stream_).expires_never();
  // Write what the producer sends while watching for the client to leave.
  auto result = co_await (drain(reply, keep_alive, headers, exchange) || watch_peer());
  reply->set_waker(nullptr);
  const bool written = result.index() == 0 && std::get<0>(result);
  exchange.written = written;
  if (reply->overflowed()) {
    spdlog::info(
        "http: stream to {} cut: the client reads too slowly (more than {} bytes waited unsent)",
        remote_, server_.options.stream_buffer_limit);
  }
  // The client went away, seen by the watch or by a write that failed first (a hang-up with
  // unread data resets the connection, and either may notice), or could not keep up: stop the
  // work behind the answer.
  if (!written) reply->cancel();
  co_return written;
}

template <typename Stream>
net::awaitable<bool> Connection<Stream>::drain(std::shared_ptr<ReplyStream> reply, bool keep_alive,
                                               const Headers& headers, Exchange& exchange) {
  bool streaming = false;
  for (;;) {
    if (reply->overflowed()) co_return false;
    if (!reply->has_data()) {
      wake_.expires_at(net::steady_timer::time_point::max());
      co_await wake_.async_wait(as_tuple(use_awaitable));
      continue;
    }
    ReplyStream::Batch batch = reply->take();
    if (batch.response && !streaming) {
      exchange.status = batch.response->status;
      exchange.body_bytes = batch.response->body.size();
      co_return co_await write_response(*batch.response, keep_alive, false, &headers);
    }

    std::string out;
    if (batch.opened && !streaming) {
      streaming = true;
      const std::string head = format_response_head({.status = batch.status,
                                                     .content_type = batch.content_type,
                                                     .fields = &batch.headers,
                                                     .more = &headers,
                                                     .content_length = std::nullopt,
                                                     .keep_alive = keep_alive,
                                                     .watch = watch_});
      beast::get_lowest_layer(stream_).expires_after(server_.options.write_timeout);
      exchange.status = batch.status;
      exchange.streamed = true;
      auto [ec, n] = co_await net::async_write(stream_, net::buffer(head), as_tuple(use_awaitable));
      if (ec) co_return false;
      exchange.first_byte = std::chrono::steady_clock::now();
    }
    if (!batch.data.empty() && streaming) {
      exchange.body_bytes += batch.data.size();
      if (!co_await write_all(bhttp::make_chunk(net::buffer(batch.data)))) co_return false;
    }
    if (batch.closed) {
      if (!streaming) co_return false;  // closed without ever opening: nothing valid to send
      co_return co_await write_all(bhttp::make_chunk_last());
    }
  }
}

template <typename Stream>
net::awaitable<void> Connection<Stream>::watch_peer() {
  // Any read completion but data means the client is gone. Pipelined bytes are kept for the
  // next request (up to a bound, after which we stop reading and just wait).
  auto& source = readable(stream_);
  for (;;) {
    if (buffer_.size() > 64 * 1024) {
      net::steady_timer forever(co_await net::this_coro::executor,
                                net::steady_timer::time_point::max());
      co_await forever.async_wait(as_tuple(use_awaitable));
      co_return;
    }
    auto [ec, n] = co_await source.async_read_some(buffer_.prepare(8192), as_tuple(use_awaitable));
    if (ec) co_return;
    buffer_.commit(n);
  }
}

template class Connection<PlainStream>;
template class Connection<TlsStream>;

}  // namespace supportd::http
