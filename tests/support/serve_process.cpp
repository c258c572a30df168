// `supportd serve` as a child process of a test (serve_process.h).
#include "serve_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <utility>

#include "http_client.h"
#include "test_paths.h"

namespace supportd::testing {

namespace fs = std::filesystem;

ServeProcess::ServeProcess(const std::vector<std::string>& flags, const std::string& log_level,
                           fs::path data_directory) {
  directory_ = fs::temp_directory_path() /
               ("supportd-serve-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
  fs::remove_all(directory_);
  fs::create_directories(directory_);
  data_directory_ = data_directory.empty() ? directory_ / "data" : std::move(data_directory);
  argv_ = {supportd_binary(), "serve",
           "--port",          "0",
           "--port-file",     (directory_ / "port").string(),
           "--data-dir",      data_directory_.string(),
           "--log-level",     log_level};
  argv_.insert(argv_.end(), flags.begin(), flags.end());
  start();
}

void ServeProcess::start() {
  const std::string log = (directory_ / "server.log").string();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (std::FILE* out = std::freopen(log.c_str(), "a", stdout)) ::dup2(::fileno(out), 2);
    std::vector<char*> args;
    for (std::string& a : argv_)
      args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
}

void ServeProcess::restart() {
  kill();
  std::error_code ec;
  fs::remove(directory_ / "port", ec);  // wait_ready() reads the new process's port
  port_ = 0;
  start();
}

ServeProcess::~ServeProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  std::error_code ec;
  fs::remove_all(directory_, ec);
}

void ServeProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

bool ServeProcess::wait_ready(std::string& why, int seconds,
                              const std::function<int(std::uint16_t port)>& ready_status) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (pid_ <= 0 || ::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      why = "supportd exited: " + log();
      return false;
    }
    std::ifstream file(directory_ / "port");
    int port = 0;
    if (file >> port && port > 0) {
      port_ = static_cast<std::uint16_t>(port);
      const int status =
          ready_status ? ready_status(port_) : http_request(port_, "GET", "/ready").status;
      if (status == 200) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  why = "supportd was not ready within " + std::to_string(seconds) + " s: " + log();
  return false;
}

std::string ServeProcess::log() const {
  std::ifstream file(directory_ / "server.log");
  return {std::istreambuf_iterator<char>(file), {}};
}

}  // namespace supportd::testing
