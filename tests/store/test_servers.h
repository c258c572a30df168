// Real Redis and PostgreSQL servers that a test starts, kills and restarts itself: the
// binaries from the Debian packages (as scripts/services.sh runs them), on free loopback
// ports, with their files in a scratch directory. A server dies with the test process.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

#include "loopback_ports.h"

namespace supportd::store::testing {

// A free TCP port on 127.0.0.1 (bound and released; a small race with other processes).
using supportd::testing::free_port;

// Address of the shared test server named by `variable` (SUPPORTD_TEST_REDIS,
// SUPPORTD_TEST_POSTGRES): scripts/test.sh always sets them. Fails the test when missing.
std::string required_env(const char* variable);

class RedisServer {
 public:
  explicit RedisServer(std::filesystem::path dir);  // picks a port; does not start
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  // Starts (again, on the same port, empty) and waits until it answers. False on failure.
  bool start();
  // SIGKILL, as a crash; waits for the process to be gone.
  void kill();
  // SIGSTOP / SIGCONT: the process stays, but stops answering.
  void pause();
  void resume();
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

 private:
  std::filesystem::path dir_;
  int port_;
  pid_t pid_ = -1;
};

class PostgresServer {
 public:
  // Copies a template cluster (made once by initdb into the build's test data) into `dir`.
  explicit PostgresServer(std::filesystem::path dir);
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // Starts on the same port and waits until it accepts connections. False on failure.
  bool start();
  // Immediate shutdown (SIGQUIT to the postmaster: no checkpoint, as after a crash); waits.
  void kill();
  void pause();   // SIGSTOP the postmaster and its backends
  void resume();  // SIGCONT them
  std::string uri() const {
    return "postgresql://supportd@127.0.0.1:" + std::to_string(port_) + "/postgres";
  }

 private:
  void signal_all(int signal);

  std::filesystem::path dir_;
  int port_;
  pid_t pid_ = -1;
};

}  // namespace supportd::store::testing
