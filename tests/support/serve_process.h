// `supportd serve` run by a test as its own process: the built binary on an ephemeral port
// (read back from --port-file), with its own data directory and log file, stopped with SIGTERM
// when the object goes (or killed with SIGKILL on purpose, as a crash). It dies with the test
// process.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace supportd::testing {

class ServeProcess {
 public:
  // Starts `supportd serve --port 0 --port-file ... --data-dir ... --log-level warn FLAGS...`.
  explicit ServeProcess(const std::vector<std::string>& flags,
                        const std::string& log_level = "warn");
  ~ServeProcess();  // SIGTERM, then waits for the process
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // Waits until /ready answers 200; false (with the server's log in `why`) when it does not
  // within `seconds` or the process ended.
  bool wait_ready(std::string& why, int seconds = 60);
  // SIGKILL, as a crash; waits until the process is gone.
  void kill();
  std::uint16_t port() const { return port_; }
  std::string log() const;

 private:
  static inline int counter_ = 0;
  std::filesystem::path directory_;
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace supportd::testing
