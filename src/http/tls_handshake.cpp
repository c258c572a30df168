// A TLS connection's first step (see connection.h): the handshake, and the answer to a client
// that spoke plain HTTP to the TLS port.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>

#include "http/connection.h"
#include "http/server_impl.h"

namespace supportd::http {

using net::as_tuple;
using net::use_awaitable;

namespace {

// True when a TLS handshake failed because the client spoke plain HTTP.
bool plain_http_on_tls(const boost::system::error_code& ec) {
  return ec.category() == net::error::get_ssl_category() &&
         ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == SSL_R_HTTP_REQUEST;
}

}  // namespace

template <typename Stream>
net::awaitable<bool> Connection<Stream>::handshake() {
  auto& lowest = beast::get_lowest_layer(stream_);
  lowest.expires_after(server_.options.read_timeout);
  auto [ec] =
      co_await stream_.async_handshake(net::ssl::stream_base::server, as_tuple(use_awaitable));
  lowest.expires_never();
  if (!ec) co_return true;
  spdlog::debug("http: TLS handshake with {} failed: {}", remote_, ec.message());
  if (plain_http_on_tls(ec)) {
    // What nginx does: tell the client, in the only language it speaks, then linger below TLS.
    const std::string body =
        error_body("this port speaks HTTPS: send the request with https:// (or wss://)",
                   "invalid_request_error", "tls_required");
    const std::string answer =
        "HTTP/1.1 400 Bad Request\r\nServer: supportd\r\nContent-Type: application/json\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    lowest.expires_after(server_.options.write_timeout);
    auto [write_ec, n] =
        co_await net::async_write(lowest, net::buffer(answer), as_tuple(use_awaitable));
    if (!write_ec) co_await linger(true);
  }
  co_return false;
}

template net::awaitable<bool> Connection<TlsStream>::handshake();

}  // namespace supportd::http
