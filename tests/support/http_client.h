// A small blocking HTTP/1.1 client for tests, over plain sockets, that can also misbehave on
// purpose (send garbage, send slowly, hang up early).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace supportd::testing {

struct HttpResult {
  int status = 0;                                            // 0: no valid response
  std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
  std::string body;                                          // de-chunked
  std::string header(const std::string& name) const;
};

// A connected socket to 127.0.0.1:port. Closes on destruction.
class Connection {
 public:
  // `receive_buffer`: the socket's receive buffer in bytes (SO_RCVBUF, set before connecting:
  // a small one makes a client that stops reading stall the server's writes sooner); 0: the
  // system's.
  explicit Connection(std::uint16_t port, int receive_buffer = 0);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  bool send(const std::string& bytes);
  // Reads one response (handles Content-Length, chunked, and read-until-close).
  HttpResult read_response(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Reads whatever arrives within `timeout`.
  std::string read_some(std::chrono::milliseconds timeout);
  // True when the server closed the connection (reads EOF) within `timeout`.
  bool closed_by_peer(std::chrono::milliseconds timeout);
  void close();
  int fd() const { return fd_; }

 private:
  bool fill(std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  std::string buffer_;
};

// One request on a fresh connection.
HttpResult http_request(std::uint16_t port, const std::string& method, const std::string& target,
                        const std::string& body = {},
                        const std::vector<std::pair<std::string, std::string>>& headers = {});

// The "data:" payloads of a server-sent-event body.
std::vector<std::string> sse_data(const std::string& body);

}  // namespace supportd::testing
