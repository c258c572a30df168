// A loopback HTTP/1.1 server for tests that need a peer to answer as no supportd would (events
// paced by the test, answers of another shape): one connection at a time, each request read
// whole (headers, then Content-Length bytes of body) and handed with its socket to `respond`,
// which writes the answer; the connection is closed after it.
// Thread-safety: `respond` runs on the server's own thread; requests() may be read from any.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

namespace supportd::testing {

class ScriptedHttpServer {
 public:
  using Respond = std::function<void(int socket, const std::string& request)>;

  // Listens on 127.0.0.1 (an ephemeral port); throws std::runtime_error when it cannot.
  explicit ScriptedHttpServer(Respond respond);
  ~ScriptedHttpServer();
  ScriptedHttpServer(const ScriptedHttpServer&) = delete;
  ScriptedHttpServer& operator=(const ScriptedHttpServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Requests read whole so far.
  int requests() const { return requests_; }
  // Whether the server is stopping (a `respond` pacing a long answer should end).
  bool stopping() const { return stop_; }

  // Writes all of `text` to `socket`; false when the peer has gone.
  static bool send_all(int socket, std::string_view text);

 private:
  void serve();
  void answer(int socket);

  Respond respond_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace supportd::testing
