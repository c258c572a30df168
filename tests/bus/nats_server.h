// A real nats-server with JetStream that a test starts, kills and restarts itself: Debian's
// binary (as scripts/services.sh runs it) on a free loopback port, its store in a scratch
// directory, its settings in a config file (max_payload among them). It dies with the test
// process, and is stopped by pid.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>

namespace supportd::bus::testing {

class NatsServer {
 public:
  // Picks a port and writes the config; does not start. `max_payload` 0: the server's default.
  explicit NatsServer(std::filesystem::path dir, std::int64_t max_payload = 0);
  ~NatsServer();
  NatsServer(const NatsServer&) = delete;
  NatsServer& operator=(const NatsServer&) = delete;

  // Starts (again: same port, same store) and waits until it accepts connections (10 s at most).
  bool start();
  // SIGKILL, as a crash; waits until the process is gone.
  void kill();
  std::string url() const { return "nats://127.0.0.1:" + std::to_string(port_); }
  std::filesystem::path dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  int port_;
  pid_t pid_ = -1;
};

}  // namespace supportd::bus::testing
