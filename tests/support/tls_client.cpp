// TLS for tests (tls_client.h): certificates from the openssl command; the client, Beast's HTTP
// and WebSocket over Asio's SSL stream, each step run to completion on a private io_context.
#include "tls_client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>

namespace supportd::testing {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace ssl = boost::asio::ssl;
namespace bhttp = beast::http;

TestCertificate make_test_certificate(const std::filesystem::path& directory,
                                      const std::string& name) {
  std::filesystem::create_directories(directory);
  TestCertificate made{(directory / (name + ".crt")).string(),
                       (directory / (name + ".key")).string()};
  const std::string command =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 "
      "-subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout '" +
      made.key_file + "' -out '" + made.certificate_file + "' 2>/dev/null";
  const int status = std::system(command.c_str());
  if (status != 0) {
    ADD_FAILURE() << "could not make a test certificate (" << command << ": status " << status
                  << ")";
    return {};
  }
  return made;
}

TestCertificates::TestCertificates()
    : directory(std::filesystem::temp_directory_path() /
                ("supportd-tls-" + std::to_string(::getpid()) + "-" +
                 std::to_string(reinterpret_cast<std::uintptr_t>(this)))) {
  server = make_test_certificate(directory, "server");
  other = make_test_certificate(directory, "other");
}

TestCertificates::~TestCertificates() {
  std::error_code ec;
  std::filesystem::remove_all(directory, ec);
}

struct TlsClient::Impl {
  explicit Impl(const std::string& trusted) : context(ssl::context::tls_client) {
    context.load_verify_file(trusted);
    context.set_verify_mode(ssl::verify_peer);
    socket.emplace(io, context);
    socket->next_layer().set_verify_callback(ssl::host_name_verification("localhost"));
    SSL_set_tlsext_host_name(socket->next_layer().native_handle(), "localhost");
  }

  // Starts `start(done)` and runs it to completion; throws what it failed with.
  template <class Start>
  void bounded(Start start) {
    beast::get_lowest_layer(*socket).expires_after(std::chrono::seconds(20));
    beast::error_code result;
    start([&result](beast::error_code ec) { result = ec; });
    io.restart();
    io.run();
    if (result) throw beast::system_error(result);
  }

  asio::io_context io;
  ssl::context context;
  std::optional<beast::websocket::stream<beast::ssl_stream<beast::tcp_stream>>> socket;
  beast::flat_buffer buffer;
};

TlsClient::TlsClient(std::uint16_t port, const std::string& trusted_certificate_file)
    : impl_(std::make_unique<Impl>(trusted_certificate_file)) {
  const asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), port);
  auto& tls = impl_->socket->next_layer();
  impl_->bounded([&](auto done) { beast::get_lowest_layer(tls).async_connect(endpoint, done); });
  impl_->bounded([&](auto done) { tls.async_handshake(ssl::stream_base::client, done); });
}

TlsClient::~TlsClient() = default;

HttpResult TlsClient::request(const std::string& method, const std::string& target,
                              const std::string& body,
                              const std::vector<std::pair<std::string, std::string>>& headers) {
  bhttp::request<bhttp::string_body> message{bhttp::string_to_verb(method), target, 11};
  message.set(bhttp::field::host, "localhost");
  for (const auto& [name, value] : headers)
    message.set(name, value);
  if (!body.empty()) message.set(bhttp::field::content_type, "application/json");
  message.body() = body;
  message.prepare_payload();
  auto& tls = impl_->socket->next_layer();
  impl_->bounded([&](auto done) {
    bhttp::async_write(tls, message, [done](beast::error_code ec, std::size_t) { done(ec); });
  });
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(64u << 20);
  impl_->bounded([&](auto done) {
    bhttp::async_read(tls, impl_->buffer, parser,
                      [done](beast::error_code ec, std::size_t) { done(ec); });
  });
  HttpResult result;
  const auto& response = parser.get();
  result.status = static_cast<int>(response.result_int());
  for (const auto& field : response) {
    std::string name(field.name_string());
    for (char& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    result.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  result.body = response.body();
  return result;
}

void TlsClient::upgrade(const std::string& target) {
  impl_->bounded([&](auto done) { impl_->socket->async_handshake("localhost", target, done); });
}

void TlsClient::send(const std::string& text) {
  impl_->bounded([&](auto done) {
    impl_->socket->async_write(asio::buffer(text),
                               [done](beast::error_code ec, std::size_t) { done(ec); });
  });
}

std::string TlsClient::receive() {
  beast::flat_buffer message;
  impl_->bounded([&](auto done) {
    impl_->socket->async_read(message, [done](beast::error_code ec, std::size_t) { done(ec); });
  });
  return beast::buffers_to_string(message.data());
}

}  // namespace supportd::testing
