// A connection's life as a WebSocket: a reader that hands text messages to the handler, and a
// writer that drains the peer's outgoing queue, both on the connection's strand; over plain TCP
// or TLS alike.
#include <deque>
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>

#include "http/connection.h"
#include "http/server_impl.h"

namespace supportd::http {

namespace websocket = beast::websocket;
using net::as_tuple;
using net::use_awaitable;

namespace {

// `buffer_limit`: bytes the queue may hold for a client that reads too slowly; past it the
// socket is cut (a close frame could not reach such a client).
class Peer final : public WebSocketPeer, public std::enable_shared_from_this<Peer> {
 public:
  Peer(net::any_io_executor executor, std::size_t buffer_limit, tcp::socket& socket)
      : executor_(executor), wake_(executor), buffer_limit_(buffer_limit), socket_(&socket) {}

  void send(std::string text) override {
    {
      std::lock_guard lock(mutex_);
      if (closing_) return;
      if (buffer_limit_ > 0 && queued_ + text.size() > buffer_limit_) {
        closing_ = overflowed_ = true;
        outgoing_.clear();
      } else {
        queued_ += text.size();
        outgoing_.push_back(std::move(text));
      }
    }
    poke();
  }

  void close(std::string reason) override {
    {
      std::lock_guard lock(mutex_);
      if (closing_) return;
      closing_ = true;
      reason_ = std::move(reason);
    }
    poke();
  }

  bool closed() const override {
    std::lock_guard lock(mutex_);
    return closing_;
  }

  // Strand only: true for the first caller, the one that may send the close frame (Beast allows
  // one close operation at a time; the reader refusing a message and the writer carrying out
  // close() may both want to).
  bool start_close() { return !std::exchange(close_started_, true); }

  // Strand only: waits until there is something to do.
  net::awaitable<void> wait() {
    wake_.expires_at(net::steady_timer::time_point::max());
    co_await wake_.async_wait(as_tuple(use_awaitable));
  }

  // Strand only: takes the queued messages; `reason` is set once a close was asked for.
  std::deque<std::string> take(std::optional<std::string>& reason) {
    std::lock_guard lock(mutex_);
    std::deque<std::string> out;
    out.swap(outgoing_);
    queued_ = 0;
    if (closing_) reason = reason_;
    return out;
  }

  bool overflowed() const {
    std::lock_guard lock(mutex_);
    return overflowed_;
  }

  // Strand only: the socket is gone; an overflow no longer has anything to cut.
  void forget_socket() { socket_ = nullptr; }

  bool idle() const {
    std::lock_guard lock(mutex_);
    return outgoing_.empty() && !closing_;
  }

  void mark_closed() {
    std::lock_guard lock(mutex_);
    closing_ = true;
    outgoing_.clear();
  }

 private:
  void poke() {
    net::post(executor_, [self = weak_from_this()] {
      auto peer = self.lock();
      if (!peer) return;
      peer->wake_.cancel();
      // Too slow a client: cut it now, even in the middle of a write.
      if (peer->socket_ && peer->overflowed()) {
        spdlog::info(
            "http: WebSocket cut: the client reads too slowly (more than {} bytes "
            "waited unsent)",
            peer->buffer_limit_);
        boost::system::error_code ec;
        peer->socket_->close(ec);
        peer->socket_ = nullptr;
      }
    });
  }

  net::any_io_executor executor_;
  net::steady_timer wake_;  // strand only
  const std::size_t buffer_limit_;
  tcp::socket* socket_;  // strand only; null once the socket is gone
  mutable std::mutex mutex_;
  std::deque<std::string> outgoing_;  // guarded by mutex_
  std::size_t queued_ = 0;            // guarded by mutex_: bytes in outgoing_
  bool closing_ = false;              // guarded by mutex_
  bool overflowed_ = false;           // guarded by mutex_
  std::string reason_;                // guarded by mutex_
  bool close_started_ = false;        // strand only
};

// A close handshake, bounded by `limit` (the server's write timeout): past it the socket is shut
// and the close cancelled, which ends it wherever it waits. Without the bound, a close the writer
// sends while the reader's read fails on a protocol error deadlocks inside Beast: the close holds
// the write lock waiting for the read to end, the failing read waits for the write lock to send
// its own close frame. Neither waits on the socket, so shutting it resumes neither: only
// cancelling the close does (Beast then drops the connection), and the reader, parked the same
// way, is cancelled in turn when the writer returns (run_websocket's ||). Without that, the
// connection's coroutines and its handler (never told on_close) stayed for good.
// The close listens to the bound's signal only, not to the coroutine's own cancellation (the ||
// cancelling the writer when the reader ended): a close that ignored that cancellation would
// have cancelled its bound with it. A cancellation that comes while the close runs between two
// waits is lost, so the bound cancels again every `limit` until the close has ended.
template <typename WebSocket>
net::awaitable<void> close_within(WebSocket& ws, websocket::close_reason reason,
                                  std::chrono::steady_clock::duration limit) {
  // Strand only. Shared with the bound's wait, which may run after this coroutine has ended.
  struct Bound : std::enable_shared_from_this<Bound> {
    Bound(net::any_io_executor executor, tcp::socket& socket,
          std::chrono::steady_clock::duration limit)
        : timer(executor), socket(socket), limit(limit) {}
    void arm() {
      timer.expires_after(limit);
      timer.async_wait([self = this->shared_from_this()](const boost::system::error_code& ec) {
        if (ec || self->ended) return;
        boost::system::error_code ignored;
        self->socket.close(ignored);
        self->arm();  // before the cancel, which may end the close, and this coroutine, here
        self->cancel.emit(net::cancellation_type::terminal);
      });
    }
    net::steady_timer timer;
    tcp::socket& socket;  // not touched once `ended`
    const std::chrono::steady_clock::duration limit;
    net::cancellation_signal cancel;
    bool ended = false;
  };
  auto bound = std::make_shared<Bound>(co_await net::this_coro::executor,
                                       beast::get_lowest_layer(ws).socket(), limit);
  bound->arm();
  co_await ws.async_close(
      reason, net::bind_cancellation_slot(bound->cancel.slot(), as_tuple(use_awaitable)));
  bound->ended = true;  // a wait already queued runs later, after ws may be gone
  bound->timer.cancel();
}

// Reads until the socket closes. A binary message is refused with a close frame, unless the
// writer is already closing: then the reader goes on reading (the client's close frame, which
// ends the handshake, arrives through it) without handing messages on.
template <typename WebSocket>
net::awaitable<void> read_messages(WebSocket& ws, WebSocketHandler& handler, Peer& peer,
                                   std::chrono::steady_clock::duration close_limit) {
  beast::flat_buffer buffer;
  for (;;) {
    auto [ec, n] = co_await ws.async_read(buffer, as_tuple(use_awaitable));
    if (ec) co_return;  // closed by the client, a protocol error (Beast answers it), or the limit
    if (!ws.got_text()) {
      peer.mark_closed();  // nothing more is sent, nor handed on
      if (peer.start_close()) {
        co_await close_within(
            ws, {websocket::close_code::bad_payload, "only text messages are accepted"},
            close_limit);
        co_return;
      }
    } else if (!peer.closed()) {
      const auto data = buffer.cdata();
      handler.on_message(std::string_view(static_cast<const char*>(data.data()), data.size()));
    }
    buffer.consume(buffer.size());
  }
}

template <typename WebSocket>
net::awaitable<void> write_messages(WebSocket& ws, Peer& peer,
                                    std::chrono::steady_clock::duration close_limit) {
  for (;;) {
    if (peer.idle()) co_await peer.wait();
    std::optional<std::string> reason;
    auto messages = peer.take(reason);
    for (auto& message : messages) {
      ws.text(true);
      auto [ec, n] = co_await ws.async_write(net::buffer(message), as_tuple(use_awaitable));
      if (ec) co_return;
    }
    if (reason) {
      if (peer.start_close()) {
        co_await close_within(ws, {websocket::close_code::normal, *reason}, close_limit);
        co_return;
      }
      // The reader is closing: returning now would cancel its close. Wait to be cancelled when
      // it ends (nothing else wakes a closed peer).
      for (;;)
        co_await peer.wait();
    }
  }
}

}  // namespace

template <typename Stream>
net::awaitable<void> Connection<Stream>::run_websocket(std::shared_ptr<WebSocketHandler> handler,
                                                       std::string fields) {
  using namespace net::experimental::awaitable_operators;
  websocket::stream<Stream> ws(std::move(stream_));
  upgraded_ = true;
  beast::get_lowest_layer(ws).expires_never();
  ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
  ws.set_option(websocket::stream_base::decorator(
      [fields = std::move(fields)](websocket::response_type& response) {
        response.set(beast::http::field::server, "supportd");
        // The watch's fields (traceparent...), on the 101 and on a refusal alike.
        for (std::string_view rest = fields; !rest.empty();) {
          const std::size_t end = rest.find("\r\n");
          const std::string_view line = rest.substr(0, end);
          rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 2);
          if (const std::size_t colon = line.find(": "); colon != std::string_view::npos)
            response.insert(line.substr(0, colon), line.substr(colon + 2));
        }
        if (response.result() == beast::http::status::switching_protocols) return;
        // A refused handshake (no key, a version other than 13...): Beast's reason, in the JSON
        // error every other refusal has.
        const int status = static_cast<int>(response.result_int());
        const Response error = error_response(
            status, "WebSocket handshake refused: " + response.body(), "invalid_request_error",
            status == 426 ? "unsupported_websocket_version" : "bad_websocket_handshake");
        response.set(beast::http::field::content_type, error.content_type);
        response.body() = error.body;
        response.prepare_payload();
      }));
  ws.read_message_max(server_.options.websocket_message_limit);
  auto [ec] = co_await ws.async_accept(last_message_, as_tuple(use_awaitable));
  if (ec) co_return;

  auto peer = std::make_shared<Peer>(ws.get_executor(), server_.options.stream_buffer_limit,
                                     beast::get_lowest_layer(ws).socket());
  handler->on_open(peer);
  co_await (read_messages(ws, *handler, *peer, server_.options.write_timeout) ||
            write_messages(ws, *peer, server_.options.write_timeout));
  peer->forget_socket();
  peer->mark_closed();
  handler->on_close();
}

template net::awaitable<void> Connection<PlainStream>::run_websocket(
    std::shared_ptr<WebSocketHandler> handler, std::string fields);
template net::awaitable<void> Connection<TlsStream>::run_websocket(
    std::shared_ptr<WebSocketHandler> handler, std::string fields);

}  // namespace supportd::http
