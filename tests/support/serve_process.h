// `supportd serve` run by a test as its own process: the built binary on an ephemeral port
// (read back from --port-file), with its own data directory and log file, stopped with SIGTERM
// when the object goes (or killed with SIGKILL on purpose, as a crash, and started again on the
// same data directory). It dies with the test process.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace supportd::testing {

class ServeProcess {
 public:
  // Starts `supportd serve --port 0 --port-file ... --data-dir ... --log-level warn FLAGS...`;
  // the data directory is `data_directory` when given (a mount the test made), else a fresh one.
  explicit ServeProcess(const std::vector<std::string>& flags,
                        const std::string& log_level = "warn",
                        std::filesystem::path data_directory = {});
  ~ServeProcess();  // SIGTERM, then waits for the process
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  // Waits until /ready answers 200; false (with the server's log in `why`) when it does not
  // within `seconds` or the process ended. `ready_status`: how to ask /ready on a port (e.g.
  // over TLS); empty: plain HTTP.
  bool wait_ready(std::string& why, int seconds = 60,
                  const std::function<int(std::uint16_t port)>& ready_status = {});
  // SIGKILL, as a crash; waits until the process is gone.
  void kill();
  // Starts the same command again (same flags and data directory, a new port) after kill();
  // wait_ready() then waits for the new process. Its log is appended to the first's.
  void restart();
  // The data directory given to --data-dir.
  const std::filesystem::path& data_directory() const { return data_directory_; }
  std::uint16_t port() const { return port_; }
  std::string log() const;

 private:
  void start();

  static inline int counter_ = 0;
  std::filesystem::path directory_;
  std::filesystem::path data_directory_;
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  std::uint16_t port_ = 0;
};

}  // namespace supportd::testing
