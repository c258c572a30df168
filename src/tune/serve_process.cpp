// Starting, waiting for and stopping a `supportd serve` child process (see serve_process.h).
#include "tune/serve_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>

#include "plan/stats_client.h"

namespace supportd::tune {
namespace {

using Clock = std::chrono::steady_clock;

// True once the child has exited (it is then reaped).
bool exited(pid_t pid, bool block) {
  int status = 0;
  const pid_t done = ::waitpid(pid, &status, block ? 0 : WNOHANG);
  return done == pid || (done < 0 && errno == ECHILD);
}

std::string read_port(const std::string& path) {
  std::ifstream in(path);
  std::string port;
  in >> port;
  return port;
}

}  // namespace

std::string tail_of_file(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string text;
  for (const std::string& line : last)
    text += line + "\n";
  return text;
}

Result<ServeProcess> ServeProcess::start(const std::string& binary,
                                         const std::vector<std::string>& args,
                                         const std::string& log_path, double ready_timeout_s) {
  const std::string port_file = log_path + ".port";
  std::error_code ec;
  std::filesystem::remove(port_file, ec);
  std::vector<std::string> argv{binary, "serve"};
  argv.insert(argv.end(), args.begin(), args.end());
  for (const char* arg : {"--host", "127.0.0.1", "--port", "0", "--port-file"})
    argv.emplace_back(arg);
  argv.push_back(port_file);
  std::vector<char*> pointers;
  for (std::string& arg : argv)
    pointers.push_back(arg.data());
  pointers.push_back(nullptr);

  // Opened before the fork: the child only makes async-signal-safe calls before exec.
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log < 0 || null < 0) {
    const int error = errno;
    if (log >= 0) ::close(log);
    if (null >= 0) ::close(null);
    return Error::make(ErrorCode::kUnavailable,
                       "cannot open the server log " + log_path + ": " + std::strerror(error));
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    // The server dies with the tuner, however the tuner ends (even killed): no orphans.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(null, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execv(pointers[0], pointers.data());
    ::_exit(127);
  }
  const int fork_error = errno;
  ::close(log);
  ::close(null);
  if (pid < 0) {
    return Error::make(ErrorCode::kUnavailable,
                       "cannot start " + binary + " serve: " + std::strerror(fork_error));
  }
  ServeProcess process(pid, port_file);
  const auto deadline = Clock::now() + std::chrono::duration<double>(ready_timeout_s);
  while (Clock::now() < deadline) {
    if (exited(pid, false)) {
      process.pid_ = -1;
      return Error::make(ErrorCode::kUnavailable, "supportd serve exited before it was ready:\n" +
                                                      tail_of_file(log_path, 8));
    }
    const std::string port = read_port(port_file);
    if (!port.empty()) {
      const std::string url = "http://127.0.0.1:" + port;
      if (plan::http_get(url, "/ready", "", 2)) {
        process.url_ = url;
        return process;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  process.stop();
  return Error::make(ErrorCode::kUnavailable, "supportd serve was not ready within " +
                                                  std::to_string(ready_timeout_s) + " s:\n" +
                                                  tail_of_file(log_path, 8));
}

ServeProcess::ServeProcess(ServeProcess&& other) noexcept
    : pid_(other.pid_), port_file_(std::move(other.port_file_)), url_(std::move(other.url_)) {
  other.pid_ = -1;
}

ServeProcess& ServeProcess::operator=(ServeProcess&& other) noexcept {
  if (this != &other) {
    stop();
    pid_ = other.pid_;
    port_file_ = std::move(other.port_file_);
    url_ = std::move(other.url_);
    other.pid_ = -1;
  }
  return *this;
}

ServeProcess::~ServeProcess() {
  stop();
}

void ServeProcess::stop(double grace_s) {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::duration<double>(grace_s);
  bool done = false;
  while (!(done = exited(pid_, false)) && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (!done) {
    ::kill(pid_, SIGKILL);
    exited(pid_, true);
  }
  pid_ = -1;
  std::error_code ec;
  std::filesystem::remove(port_file_, ec);
}

}  // namespace supportd::tune
