// An http::Server in process on an ephemeral port, for the tests of clients that misbehave.
// Its routes stand in for supportd's own only in what the server does with them:
//   ANY /echo/...      200 {"path": ..., "body_bytes": N} (answers show which request they are)
//   GET /stream        a streamed answer (SSE) written by a producer thread, as the engine
//                      writes tokens: ?pieces=N&piece_bytes=B, and &paced=1 for a producer that
//                      never gets more than a piece ahead of the connection
//   GET /ws            a WebSocket whose producer thread pushes ?pieces=N messages of B bytes;
//                      &close_on_message=1: its handler asks to close on each message it gets
//                      (as the desk's socket refuses one)
// What each producer did is recorded in a Production the test can wait on.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http/server.h"
#include "http_client.h"

namespace supportd::testing {

// What one stream's producer did. Thread-safe.
struct Production {
  std::atomic<std::size_t> bytes_offered{0};  // handed to write()/send(), dropped or not
  std::atomic<bool> finished{false};          // the producer stopped (done, or told to stop)
  std::atomic<bool> cancelled{false};         // the server cancelled it (client gone or slow)
  std::atomic<bool> socket_closed{false};     // WebSocket: on_close ran
};

class HostileServer {
 public:
  // `configure` may change the options (limits, timeouts) before the server starts.
  explicit HostileServer(const std::function<void(http::ServerOptions&)>& configure = {});
  ~HostileServer();

  std::uint16_t port() const { return server_->port(); }
  http::Server& server() { return *server_; }

  // The production of the `index`th stream or socket opened (0-based); waits up to 30 s for it
  // to start. Null when it never did.
  std::shared_ptr<Production> production(std::size_t index);

  // Polls `condition` every 10 ms for up to `limit`; true once it holds.
  static bool eventually(const std::function<bool()>& condition,
                         std::chrono::milliseconds limit = std::chrono::seconds(30));

 private:
  http::Response handle(http::Request& request);
  http::Response stream(const http::Request& request);
  http::Response socket(const http::Request& request);

  std::unique_ptr<http::Server> server_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<Production>> productions_;  // guarded by mutex_
  std::vector<std::thread> producers_;                    // guarded by mutex_
  std::atomic<bool> stopping_{false};
};

// The port's answer to GET /echo/health on a fresh connection: 200 when the server still serves.
int health(std::uint16_t port);

// Expects `response` to be the JSON error {"error": {"message", "type", "code"}} with this status
// and code.
void expect_json_error(const HttpResult& response, int status, const std::string& code);

// A request head: `method path HTTP/1.1`, Host, then `fields` (each "Name: value\r\n").
std::string head(const std::string& method, const std::string& path, const std::string& fields);

}  // namespace supportd::testing
