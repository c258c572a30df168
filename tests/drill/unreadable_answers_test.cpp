// The drill against a server whose answers are JSON objects of another shape (here `{}` to
// everything: a server of another version, a proxy): it ends with a clear error naming the URL
// and exit code 1, after stopping its load, instead of aborting on Boost.JSON's exception.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "supportd_command.h"

namespace supportd {
namespace {

// A loopback HTTP server answering every request 200 with `{}`, one connection at a time.
class AnswersEmptyObjects {
 public:
  AnswersEmptyObjects() {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::listen(listener_, 64) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
      return;
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~AnswersEmptyObjects() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(listener_);
  }
  int port() const { return port_; }
  int requests() const { return requests_; }

 private:
  void serve() {
    while (!stop_) {
      pollfd ready{listener_, POLLIN, 0};
      if (::poll(&ready, 1, 50) <= 0) continue;
      const int connection = ::accept(listener_, nullptr, nullptr);
      if (connection < 0) continue;
      answer(connection);
      ::close(connection);
    }
  }
  void answer(int connection) {
    std::string request;
    char buffer[4096];
    std::size_t header_end = std::string::npos;
    while (header_end == std::string::npos) {
      pollfd ready{connection, POLLIN, 0};
      if (::poll(&ready, 1, 2000) <= 0) return;
      const ssize_t got = ::read(connection, buffer, sizeof buffer);
      if (got <= 0) return;
      request.append(buffer, static_cast<std::size_t>(got));
      header_end = request.find("\r\n\r\n");
    }
    ++requests_;
    const std::string reply =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
        "Connection: close\r\n\r\n{}";
    (void)!::write(connection, reply.data(), reply.size());
  }

  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

TEST(LatencySpikeDrill, AnAnswerOfAnotherShapeIsAnErrorNotAnAbort) {
  AnswersEmptyObjects server;
  const std::filesystem::path key = std::filesystem::temp_directory_path() /
                                    ("supportd-drill-shape-key-" + std::to_string(::getpid()));
  std::ofstream(key) << "drill-test-admin-key-0123456789\n";
  const std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  const auto run = testing::run_supportd({"drill", "latency-spike", "--url", url,
                                          "--admin-key-file", key.string(), "--quiet",
                                          "--learn-timeout", "10", "--settle-seconds", "1"});
  std::filesystem::remove(key);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("not what the drill reads"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(url), std::string::npos) << run.err;
  EXPECT_GT(server.requests(), 0);
}

}  // namespace
}  // namespace supportd
