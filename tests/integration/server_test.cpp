// The HTTP server and OpenAI API end to end, in process, on an ephemeral port: answers, streams,
// concurrency, disconnects, and every kind of bad input a client can send.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <thread>

#include "api/routes.h"
#include "core/utf8.h"
#include "engine/llama/llama_engine.h"
#include "engine_idle.h"
#include "http/server.h"
#include "http_client.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::Connection;
using testing::http_request;
using testing::sse_data;

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    engine::llama::EngineOptions options;
    options.model_path = testing::synthesized_model();
    options.threads = 0;            // auto: robust when tests run in parallel
    options.context_cells = 65536;  // long enough that "endless" requests outlive the test's waits
    options.parallel = 4;
    options.step_tokens = 64;
    auto created = engine::llama::LlamaEngine::create(options);
    ASSERT_TRUE(created.ok()) << created.error().message;
    engine_ = std::move(created).value().release();
    services_ = new api::Services{engine_};
    router_ = new http::Router(api::make_router(*services_));
    http::ServerOptions server_options;
    server_options.port = 0;
    server_options.threads = 2;
    server_options.body_limit = 1024 * 1024;
    server_options.header_limit = 8 * 1024;
    server_options.read_timeout = std::chrono::milliseconds(1500);
    server_options.idle_timeout = std::chrono::milliseconds(5000);
    server_ =
        new http::Server(server_options, [](http::Request& r) { return router_->dispatch(r); });
    ASSERT_TRUE(server_->start().ok());
    // The warm-up runs on the engine's thread: waited for (bounded), not assumed done, since a
    // loaded machine can take far longer than a quiet one.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (!engine_->ready() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(engine_->ready()) << "the engine did not finish its warm-up within 2 minutes";
  }
  static void TearDownTestSuite() {
    server_->stop();
    engine_->shutdown();
    delete server_;
    delete router_;
    delete services_;
    delete engine_;
  }

  static std::uint16_t port() { return server_->port(); }

  static std::string chat_body(const std::string& text, int max_tokens, bool stream) {
    return json::serialize(
        json::object{{"model", engine_->model().id},
                     {"messages", json::array{json::object{{"role", "user"}, {"content", text}}}},
                     {"max_tokens", max_tokens},
                     {"temperature", 0},
                     {"ignore_eos", true},
                     {"stream", stream}});
  }

  static void expect_error(const testing::HttpResult& r, int status, const std::string& code = {}) {
    EXPECT_EQ(r.status, status) << r.body;
    boost::system::error_code ec;
    const json::value body = json::parse(r.body, ec);
    ASSERT_FALSE(ec) << "error body is not JSON: " << r.body;
    ASSERT_TRUE(body.is_object() && body.as_object().contains("error")) << r.body;
    const auto& error = body.at("error").as_object();
    EXPECT_FALSE(error.at("message").as_string().empty());
    if (!code.empty()) {
      EXPECT_EQ(error.at("code"), json::value(code)) << r.body;
    }
  }

  static void wait_until_idle() { testing::wait_until_idle(*engine_); }

  static engine::llama::LlamaEngine* engine_;
  static api::Services* services_;
  static http::Router* router_;
  static http::Server* server_;
};

engine::llama::LlamaEngine* ServerTest::engine_ = nullptr;
api::Services* ServerTest::services_ = nullptr;
http::Router* ServerTest::router_ = nullptr;
http::Server* ServerTest::server_ = nullptr;

TEST_F(ServerTest, ProbesAndModelList) {
  EXPECT_EQ(http_request(port(), "GET", "/health").status, 200);
  EXPECT_EQ(http_request(port(), "GET", "/ready").status, 200);
  const auto models = http_request(port(), "GET", "/v1/models");
  ASSERT_EQ(models.status, 200);
  const auto listing = json::parse(models.body);
  const auto& model = listing.at("data").as_array().at(0);
  EXPECT_EQ(model.at("id").as_string(), engine_->model().id);
  EXPECT_EQ(model.at("meaningless_text"), json::value(true));
  // One model by id, as the openai client's models.retrieve() asks for it.
  const auto one = http_request(port(), "GET", "/v1/models/" + engine_->model().id);
  ASSERT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(json::parse(one.body), model);
  expect_error(http_request(port(), "GET", "/v1/models/gpt-4o"), 404, "model_not_found");
}

TEST_F(ServerTest, HeadAnswersLikeGetWithoutTheBody) {
  const auto get = http_request(port(), "GET", "/v1/models");
  ASSERT_EQ(get.status, 200);
  // Two HEADs and a GET on one kept-alive connection: no body after either head, or the GET's
  // answer would be read as part of it.
  Connection c(port());
  const std::string host = "Host: 127.0.0.1:" + std::to_string(port()) + "\r\n";
  c.send("HEAD /v1/models HTTP/1.1\r\n" + host + "\r\nHEAD /health HTTP/1.1\r\n" + host +
         "\r\nGET /health HTTP/1.1\r\n" + host + "Connection: close\r\n\r\n");
  std::string all;
  while (!c.closed_by_peer(std::chrono::milliseconds(0)) && all.size() < 100000) {
    const std::string more = c.read_some(std::chrono::milliseconds(200));
    if (more.empty()) break;
    all += more;
  }
  const std::size_t first_end = all.find("\r\n\r\n");
  ASSERT_NE(first_end, std::string::npos) << all;
  EXPECT_EQ(all.rfind("HTTP/1.1 200", 0), 0u) << all;
  EXPECT_NE(all.substr(0, first_end).find("Content-Length: " + std::to_string(get.body.size())),
            std::string::npos)
      << all;
  // Next comes the second head at once, then the GET's head and its body: {"status":"ok"}.
  EXPECT_EQ(all.find("HTTP/1.1 200", first_end), first_end + 4) << all;
  const std::size_t second_end = all.find("\r\n\r\n", first_end + 4);
  EXPECT_EQ(all.find("HTTP/1.1 200", second_end), second_end + 4) << all;
  EXPECT_NE(all.find("\"status\":\"ok\""), std::string::npos) << all;
  EXPECT_EQ(all.find("\"data\""), std::string::npos) << "a body after HEAD: " << all;
}

TEST_F(ServerTest, StreamedAndWholeAnswersAgree) {
  const auto whole = http_request(port(), "POST", "/v1/chat/completions",
                                  chat_body("Where is my order?", 12, false));
  ASSERT_EQ(whole.status, 200) << whole.body;
  const auto answer = json::parse(whole.body);
  const std::string content(answer.at("choices").at(0).at("message").at("content").as_string());
  EXPECT_EQ(answer.at("usage").at("completion_tokens"), json::value(12));
  EXPECT_EQ(answer.at("choices").at(0).at("finish_reason"), json::value("length"));
  // The model is synthesized: both answers say so in a header, not only /v1/models.
  EXPECT_NE(whole.header("x-supportd-notice").find("meaningless"), std::string::npos);

  const auto streamed = http_request(port(), "POST", "/v1/chat/completions",
                                     chat_body("Where is my order?", 12, true));
  ASSERT_EQ(streamed.status, 200);
  EXPECT_EQ(streamed.header("content-type"), "text/event-stream");
  EXPECT_NE(streamed.header("x-supportd-notice").find("meaningless"), std::string::npos);
  const auto events = sse_data(streamed.body);
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events.back(), "[DONE]");
  std::string joined;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    const auto chunk = json::parse(events[i]);
    EXPECT_EQ(chunk.at("object"), json::value("chat.completion.chunk"));
    const auto& delta = chunk.at("choices").at(0).at("delta").as_object();
    if (const auto* c = delta.if_contains("content")) joined += c->as_string();
  }
  EXPECT_EQ(joined, content);
  EXPECT_TRUE(is_valid_utf8(joined));
}

TEST_F(ServerTest, CompletionsEndpointStreamsText) {
  const std::string body =
      R"({"prompt": "Once upon a time", "max_tokens": 8, "temperature": 0, "ignore_eos": true, "stream": true})";
  const auto r = http_request(port(), "POST", "/v1/completions", body);
  ASSERT_EQ(r.status, 200);
  const auto events = sse_data(r.body);
  ASSERT_GE(events.size(), 2u);
  const auto last = json::parse(events[events.size() - 2]);
  EXPECT_EQ(last.at("choices").at(0).at("finish_reason"), json::value("length"));
  EXPECT_EQ(last.at("usage").at("completion_tokens"), json::value(8));
}

TEST_F(ServerTest, ConcurrentStreamsAllComplete) {
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < 8; ++i) {
    clients.emplace_back([&, i] {
      const auto r = http_request(port(), "POST", "/v1/chat/completions",
                                  chat_body("question " + std::to_string(i), 10, true));
      const auto events = sse_data(r.body);
      if (r.status == 200 && !events.empty() && events.back() == "[DONE]") ++ok;
    });
  }
  for (auto& t : clients)
    t.join();
  EXPECT_EQ(ok.load(), 8);
}

TEST_F(ServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  Connection c(port());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"));
    EXPECT_EQ(c.read_response().status, 200);
  }
}

TEST_F(ServerTest, ADisconnectedStreamLeavesTheEngine) {
  {
    Connection c(port());
    const std::string body = chat_body("tell me everything", 100000, true);
    c.send(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
        "application/json\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body);
    const std::string first = c.read_some(std::chrono::milliseconds(1500));
    EXPECT_NE(first.find("data: "), std::string::npos);
    EXPECT_EQ(engine_->stats().running, 1);
  }  // hang up mid-stream
  wait_until_idle();
  EXPECT_EQ(engine_->stats().running, 0);
  EXPECT_EQ(engine_->sequences_holding_cells(), 0);
}

TEST_F(ServerTest, ADisconnectedWaitingRequestIsCancelledToo) {
  {
    Connection c(port());
    const std::string body = chat_body("a long non-streamed answer", 100000, false);
    c.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body);
    for (int i = 0; i < 200 && engine_->stats().running == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(engine_->stats().running, 1);
  }
  wait_until_idle();
  EXPECT_EQ(engine_->stats().running, 0);
}

TEST_F(ServerTest, BadBodiesGetJsonErrors) {
  const std::string model = engine_->model().id;
  expect_error(http_request(port(), "POST", "/v1/chat/completions", "{oops"), 400);
  expect_error(http_request(port(), "POST", "/v1/chat/completions", R"({"messages": 3})"), 400);
  expect_error(http_request(port(), "POST", "/v1/chat/completions", R"({"model": "x"})"), 400);
  expect_error(http_request(port(), "POST", "/v1/chat/completions",
                            R"({"messages": [{"role":"user","content":"hi"}], "temperature": -1})"),
               400);
  expect_error(http_request(port(), "POST", "/v1/chat/completions",
                            "{\"messages\": [{\"role\":\"user\",\"content\":\"\xC3\x28\"}]}"),
               400);
  expect_error(http_request(port(), "POST", "/v1/chat/completions",
                            R"({"model": "gpt-17", "messages": [{"role":"user","content":"hi"}]})"),
               404, "model_not_found");
  std::string long_text;
  for (int i = 0; i < 70000; ++i)
    long_text += "lorem ";
  expect_error(http_request(port(), "POST", "/v1/chat/completions", chat_body(long_text, 4, false)),
               400, "context_length_exceeded");
  expect_error(http_request(port(), "POST", "/v1/chat/completions", std::string(1100 * 1024, ' ')),
               413);
  expect_error(http_request(port(), "GET", "/v1/nothing-here"), 404);
  expect_error(http_request(port(), "GET", "/v1/chat/completions"), 405);
  // The server is unharmed.
  EXPECT_EQ(
      http_request(port(), "POST", "/v1/chat/completions", chat_body("still there?", 2, false))
          .status,
      200);
}

TEST_F(ServerTest, OversizedHeadersGet431) {
  Connection c(port());
  c.send("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n");
  expect_error(c.read_response(), 431);
}

TEST_F(ServerTest, GarbageGets400) {
  Connection c(port());
  c.send("THIS IS NOT HTTP\r\n\r\n");
  expect_error(c.read_response(), 400);
}

// A body whose end the server cannot know must not be read as the next request (smuggling).
TEST_F(ServerTest, TransferCodingsOtherThanChunkedAreRefusedAndTheConnectionClosed) {
  for (const std::string coding : {"gzip", "chunked, gzip", "identity"}) {
    Connection c(port());
    c.send("POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + coding +
           "\r\n\r\nGET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    expect_error(c.read_response(), 400, "bad_request");
    EXPECT_TRUE(c.closed_by_peer(std::chrono::seconds(5))) << coding;
  }
  Connection gzip_chunked(port());
  gzip_chunked.send(
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
      "2\r\n{}\r\n0\r\n\r\n");
  expect_error(gzip_chunked.read_response(), 501, "unsupported_transfer_encoding");
  EXPECT_TRUE(gzip_chunked.closed_by_peer(std::chrono::seconds(5)));
  // Plain chunked still works.
  Connection chunked(port());
  chunked.send(
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "2\r\n{}\r\n0\r\n\r\n");
  expect_error(chunked.read_response(), 400, "invalid_argument");  // {} lacks a prompt
}

TEST_F(ServerTest, SlowAndEndlessClientsAreCutOffWithoutHarm) {
  Connection slow(port());
  slow.send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"mess");
  Connection endless(port());
  endless.send("GET /health HTTP/1.1\r\n");
  for (int i = 0; i < 3; ++i) {
    endless.send("X-Drip: " + std::to_string(i) + "\r\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  // Meanwhile others are served.
  EXPECT_EQ(http_request(port(), "GET", "/health").status, 200);
  EXPECT_TRUE(slow.closed_by_peer(std::chrono::seconds(5)));
  EXPECT_TRUE(endless.closed_by_peer(std::chrono::seconds(5)));
}

}  // namespace
}  // namespace supportd
