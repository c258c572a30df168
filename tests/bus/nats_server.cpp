// Starting, killing and restarting a real nats-server for the bus tests.
#include "nats_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "loopback_ports.h"

namespace supportd::bus::testing {
namespace {

using supportd::testing::free_port;
using supportd::testing::port_open;

}  // namespace

NatsServer::NatsServer(std::filesystem::path dir, std::int64_t max_payload)
    : dir_(std::move(dir)), port_(free_port()) {
  std::filesystem::create_directories(dir_ / "store");
  std::ofstream config(dir_ / "nats.conf");
  config << "listen: 127.0.0.1:" << port_ << "\n";
  if (max_payload > 0) config << "max_payload: " << max_payload << "\n";
  config << "jetstream {\n  store_dir: \"" << (dir_ / "store").string() << "\"\n}\n";
}

NatsServer::~NatsServer() {
  kill();
}

bool NatsServer::start() {
  kill();
  const std::string config = (dir_ / "nats.conf").string();
  const std::string log = (dir_ / "nats.log").string();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::setpgid(0, 0);
    const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (out >= 0) {
      ::dup2(out, 1);
      ::dup2(out, 2);
    }
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::execl("/usr/sbin/nats-server", "nats-server", "-js", "-c", config.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  for (int i = 0; i < 400; ++i) {
    if (port_open(port_)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

void NatsServer::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace supportd::bus::testing
