// One `supportd serve` process that the tuner starts for a trial: on loopback, on a port the
// kernel picks (--port 0, read back from --port-file), its stderr in a log file, stopped with
// SIGTERM (SIGKILL if it does not exit in time) and reaped. Only the process it started is ever
// signalled, by its pid; the kernel sends it SIGTERM too if the tuner dies first.
// Thread-safety: none; one owner.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/status.h"

namespace supportd::tune {

class ServeProcess {
 public:
  // Starts `binary serve ARGS --host 127.0.0.1 --port 0 --port-file FILE` with its stdout and
  // stderr in `log_path`, then waits up to `ready_timeout_s` for its port file and GET /ready.
  // kUnavailable when it cannot be started, exits early or is not ready in time, with the
  // last lines of its log (the process is then stopped).
  static Result<ServeProcess> start(const std::string& binary, const std::vector<std::string>& args,
                                    const std::string& log_path, double ready_timeout_s);

  ServeProcess(ServeProcess&& other) noexcept;
  ServeProcess& operator=(ServeProcess&& other) noexcept;
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;
  ~ServeProcess();  // stop()

  const std::string& url() const { return url_; }  // "http://127.0.0.1:PORT"

  // SIGTERM, then SIGKILL after `grace_s`; waits for the exit. Idempotent.
  void stop(double grace_s = 20);

 private:
  ServeProcess(pid_t pid, std::string port_file) : pid_(pid), port_file_(std::move(port_file)) {}

  pid_t pid_ = -1;
  std::string port_file_;
  std::string url_;
};

// The last `lines` lines of the text file at `path` (empty when it cannot be read).
std::string tail_of_file(const std::string& path, int lines);

}  // namespace supportd::tune
