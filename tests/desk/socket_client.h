// The desk tests' WebSocket client (Beast's), for the desk's sockets in the test process.
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace supportd::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;

// A blocking WebSocket client whose every step is bounded: each runs as an asynchronous
// operation under the TCP stream's 20 s expiry (which synchronous calls would ignore), so a
// server that never answers fails the test in seconds instead of hanging it.
class Socket {
 public:
  // `headers`: added to the handshake (e.g. a traceparent).
  Socket(std::uint16_t port, const std::string& target,
         const std::vector<std::pair<std::string, std::string>>& headers = {})
      : stream_(io_) {
    stream_.set_option(
        beast::websocket::stream_base::decorator([headers](beast::websocket::request_type& r) {
          for (const auto& [name, value] : headers)
            r.set(name, value);
        }));
    asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
    bounded([&](auto done) { beast::get_lowest_layer(stream_).async_connect(endpoint, done); });
    bounded([&](auto done) { stream_.async_handshake("127.0.0.1", target, done); });
  }

  void send(const std::string& text) {
    bounded([&](auto done) {
      stream_.async_write(asio::buffer(text),
                          [done](beast::error_code ec, std::size_t) { done(ec); });
    });
  }

  // The next message as JSON; throws (failing the test) when nothing comes within 20 s.
  boost::json::value receive() {
    beast::flat_buffer buffer;
    bounded([&](auto done) {
      stream_.async_read(buffer, [done](beast::error_code ec, std::size_t) { done(ec); });
    });
    return boost::json::parse(beast::buffers_to_string(buffer.data()));
  }

  // The close code the server sent, after a read failed because it closed.
  int close_code() const { return static_cast<int>(stream_.reason().code); }

  // Messages until one of `type` arrives (that one included, last); at most 1000.
  std::vector<boost::json::value> receive_until(const std::string& type) {
    std::vector<boost::json::value> messages;
    while (messages.size() < 1000) {
      messages.push_back(receive());
      if (messages.back().at("type") == boost::json::value(type)) break;
    }
    return messages;
  }

 private:
  // Starts `start(done)` and runs it to completion; throws what it failed with.
  template <class Start>
  void bounded(Start start) {
    beast::get_lowest_layer(stream_).expires_after(std::chrono::seconds(20));
    beast::error_code result;
    start([&result](beast::error_code ec) { result = ec; });
    io_.restart();
    io_.run();
    if (result) throw beast::system_error(result);
  }

  asio::io_context io_;
  beast::websocket::stream<beast::tcp_stream> stream_;
};

}  // namespace supportd::testing
