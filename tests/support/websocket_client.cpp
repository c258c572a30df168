// WebSocketClient (websocket_client.h): Beast's WebSocket stream over a TCP stream whose expiry
// bounds every step, each run to completion on a private io_context.
#include "websocket_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>
#include <chrono>

namespace supportd::testing {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace json = boost::json;

struct WebSocketClient::Impl {
  asio::io_context io;
  beast::websocket::stream<beast::tcp_stream> stream{io};
  beast::websocket::response_type handshake;  // the server's answer to the upgrade

  // Starts `start(done)` and runs it to completion; throws what it failed with.
  template <class Start>
  void bounded(Start start) {
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(20));
    beast::error_code result;
    start([&result](beast::error_code ec) { result = ec; });
    io.restart();
    io.run();
    if (result) throw beast::system_error(result);
  }
};

WebSocketClient::WebSocketClient(std::uint16_t port, const std::string& target,
                                 const std::vector<std::pair<std::string, std::string>>& headers)
    : impl_(std::make_unique<Impl>()) {
  asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
  auto& stream = impl_->stream;
  stream.set_option(
      beast::websocket::stream_base::decorator([headers](beast::websocket::request_type& request) {
        for (const auto& [name, value] : headers)
          request.set(name, value);
      }));
  impl_->bounded([&](auto done) { beast::get_lowest_layer(stream).async_connect(endpoint, done); });
  impl_->bounded(
      [&](auto done) { stream.async_handshake(impl_->handshake, "127.0.0.1", target, done); });
}

std::string WebSocketClient::handshake_header(const std::string& name) const {
  return std::string(impl_->handshake[name]);
}

WebSocketClient::~WebSocketClient() = default;

void WebSocketClient::send(const std::string& text) {
  impl_->bounded([&](auto done) {
    impl_->stream.async_write(asio::buffer(text),
                              [done](beast::error_code ec, std::size_t) { done(ec); });
  });
}

json::value WebSocketClient::receive() {
  beast::flat_buffer buffer;
  impl_->bounded([&](auto done) {
    impl_->stream.async_read(buffer, [done](beast::error_code ec, std::size_t) { done(ec); });
  });
  return json::parse(beast::buffers_to_string(buffer.data()));
}

std::vector<json::value> WebSocketClient::receive_until(const std::string& type) {
  std::vector<json::value> messages;
  while (messages.size() < 1000) {
    messages.push_back(receive());
    if (messages.back().at("type") == json::value(type)) break;
  }
  return messages;
}

int WebSocketClient::close_code() const {
  return static_cast<int>(impl_->stream.reason().code);
}

}  // namespace supportd::testing
