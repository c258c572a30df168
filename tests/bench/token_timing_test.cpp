// How the load tester times token events, against a scripted SSE server whose pacing does not
// depend on any engine's speed: every event is stamped as it is read, not when the stream ends.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "bench_fixture.h"

namespace supportd::bench {
namespace {

// A server that answers every POST with a scripted SSE stream: each event in its own write, with
// a pause before each, then [DONE] and the connection closed. It shows what the client does with
// events that arrive one by one, whatever a real server's engine and writer happen to coalesce.
class ScriptedSseServer {
 public:
  ScriptedSseServer(int events, std::chrono::milliseconds pause) : events_(events), pause_(pause) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        ::listen(listener_, 8) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedSseServer() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  void serve() {
    while (!stop_) {
      pollfd waiting{listener_, POLLIN, 0};
      if (::poll(&waiting, 1, 50) <= 0) continue;
      const int client = ::accept(listener_, nullptr, nullptr);
      if (client < 0) continue;
      answer(client);
      ::close(client);
    }
  }
  // Reads one request (headers, then Content-Length bytes of body) and streams the answer.
  void answer(int client) {
    std::string request;
    char buffer[4096];
    std::size_t needed = std::string::npos;
    while (request.size() < needed) {
      const ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
      if (n <= 0) return;
      request.append(buffer, static_cast<std::size_t>(n));
      const std::size_t end = request.find("\r\n\r\n");
      if (needed == std::string::npos && end != std::string::npos) {
        std::size_t body = 0;
        if (const std::size_t at = request.find("Content-Length: "); at != std::string::npos)
          body = std::stoul(request.substr(at + 16));
        needed = end + 4 + body;
      }
    }
    auto send_all = [client](const std::string& text) {
      return ::send(client, text.data(), text.size(), MSG_NOSIGNAL) ==
             static_cast<ssize_t>(text.size());
    };
    if (!send_all(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"))
      return;
    for (int i = 0; i < events_ && !stop_; ++i) {
      std::this_thread::sleep_for(pause_);
      if (!send_all(R"(data: {"choices":[{"index":0,"delta":{"content":" word"}}]})"
                    "\n\n"))
        return;
    }
    send_all("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":" +
             std::to_string(events_) + "}}\n\ndata: [DONE]\n\n");
  }

  const int events_;
  const std::chrono::milliseconds pause_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(BenchTest, TokensAreTimedAsTheyArriveNotInBatches) {
  // 40 events, each written 20 ms after the last: a client that stamps every event when it is
  // read sees 39 gaps, nearly all of them non-zero; one that buffered the body (or stamped the
  // events after the stream ended) would see gaps of 0.
  ScriptedSseServer server(40, std::chrono::milliseconds(20));
  BenchOptions o;
  o.url = server.url();
  o.model = "scripted";
  o.requests = 1;
  o.poll_server = false;
  o.progress = false;
  o.workload.prompt_tokens = Distribution::fixed(12);
  o.workload.output_tokens = Distribution::fixed(40);
  ASSERT_TRUE(validate(o).ok());
  auto record = run_benchmark(o);
  ASSERT_TRUE(record.ok()) << record.error().message;
  const Report r = build_report(*record, o);
  ASSERT_EQ(r.ok, 1) << r.errors << " errors";
  const ClassReport& all = r.classes[kAllClasses];
  EXPECT_EQ(all.output_tokens, 40);
  EXPECT_EQ(all.itl_ms.count, 39u);
  EXPECT_GT(all.itl_ms.p50, 0);
}

}  // namespace
}  // namespace supportd::bench
