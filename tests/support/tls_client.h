// TLS for tests: a certificate a test makes for itself (the openssl command), and a client that
// speaks HTTPS and secure WebSockets to 127.0.0.1, trusting that certificate alone and checking
// the server's name against it. Every step is bounded as WebSocketClient's are (an asynchronous
// operation under the TCP stream's 20 s expiry); every failure throws
// boost::system::system_error.
// Thread-safety: one thread at a time per client.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "http_client.h"

namespace supportd::testing {

struct TestCertificate {
  std::string certificate_file;  // PEM, self-signed, for localhost and 127.0.0.1
  std::string key_file;          // PEM, its private key (unencrypted)
};

// Makes a certificate and key in `directory` (created if missing), named after `name`; fails the
// calling test (and returns empty names) when the openssl command does not work.
TestCertificate make_test_certificate(const std::filesystem::path& directory,
                                      const std::string& name = "server");

// Two certificates in a fresh directory, removed with the object: the server's, and another
// whose key is not the server's (to refuse).
struct TestCertificates {
  TestCertificates();
  ~TestCertificates();
  TestCertificates(const TestCertificates&) = delete;
  TestCertificates& operator=(const TestCertificates&) = delete;

  std::filesystem::path directory;
  TestCertificate server;
  TestCertificate other;
};

class TlsClient {
 public:
  // Connects to 127.0.0.1:port and completes the TLS handshake, trusting only the certificate
  // in `trusted_certificate_file` and expecting it to name "localhost".
  TlsClient(std::uint16_t port, const std::string& trusted_certificate_file);
  ~TlsClient();
  TlsClient(const TlsClient&) = delete;
  TlsClient& operator=(const TlsClient&) = delete;

  // One request on this connection (keep-alive); the whole answer, a stream read to its end.
  HttpResult request(const std::string& method, const std::string& target,
                     const std::string& body = {},
                     const std::vector<std::pair<std::string, std::string>>& headers = {});

  // Turns this connection into a WebSocket at `target`; then send() and receive() its messages.
  void upgrade(const std::string& target);
  void send(const std::string& text);
  std::string receive();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace supportd::testing
