// How the load tester times token events, against a scripted SSE server whose pacing does not
// depend on any engine's speed: every event is stamped as it is read, not when the stream ends.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "bench_fixture.h"
#include "scripted_http_server.h"

namespace supportd::bench {
namespace {

// A server that answers every POST with a scripted SSE stream: each event in its own write, with
// a pause before each, then [DONE] and the connection closed. It shows what the client does with
// events that arrive one by one, whatever a real server's engine and writer happen to coalesce.
class ScriptedSseServer {
 public:
  ScriptedSseServer(int events, std::chrono::milliseconds pause)
      : server_([this, events, pause](int socket, const std::string&) {
          stream(socket, events, pause);
        }) {}
  std::string url() const { return server_.url(); }

 private:
  void stream(int socket, int events, std::chrono::milliseconds pause) {
    using testing::ScriptedHttpServer;
    if (!ScriptedHttpServer::send_all(
            socket,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"))
      return;
    for (int i = 0; i < events && !server_.stopping(); ++i) {
      std::this_thread::sleep_for(pause);
      if (!ScriptedHttpServer::send_all(
              socket, R"(data: {"choices":[{"index":0,"delta":{"content":" word"}}]})"
                      "\n\n"))
        return;
    }
    ScriptedHttpServer::send_all(
        socket, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":" +
                    std::to_string(events) + "}}\n\ndata: [DONE]\n\n");
  }

  testing::ScriptedHttpServer server_;  // last: its thread calls stream() until it is gone
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
