// The upstream engine: supportd in front of another supportd, over real HTTP on loopback.
#include "engine/upstream/upstream_engine.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/routes.h"
#include "collect_sink.h"
#include "engine/llama/llama_engine.h"
#include "engine_idle.h"
#include "http/server.h"
#include "http_client.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;

// An engine with the API in front of it, on an ephemeral port.
struct ServedEngine {
  std::unique_ptr<engine::Engine> engine;
  std::unique_ptr<api::Services> services;
  std::unique_ptr<http::Router> router;
  std::unique_ptr<http::Server> server;

  explicit ServedEngine(std::unique_ptr<engine::Engine> e) : engine(std::move(e)) {
    services = std::make_unique<api::Services>(api::Services{engine.get()});
    router = std::make_unique<http::Router>(api::make_router(*services));
    http::ServerOptions options;
    options.port = 0;
    server = std::make_unique<http::Server>(
        options, [this](http::Request& r) { return router->dispatch(r); });
    EXPECT_TRUE(server->start().ok());
  }
  ~ServedEngine() {
    server->stop();
    engine->shutdown();
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(server->port()); }
};

std::unique_ptr<engine::Engine> local_engine() {
  engine::llama::EngineOptions options;
  options.model_path = testing::synthesized_model();
  options.threads = 0;  // auto: robust when tests run in parallel
  options.context_cells = 65536;
  options.parallel = 4;
  auto created = engine::llama::LlamaEngine::create(options);
  EXPECT_TRUE(created.ok());
  return std::move(created).value();
}

std::string chat_body(int max_tokens, bool stream) {
  return json::serialize(json::object{
      {"messages", json::array{json::object{{"role", "user"}, {"content", "Where is my order?"}}}},
      {"max_tokens", max_tokens},
      {"temperature", 0},
      {"ignore_eos", true},
      {"stream", stream}});
}

TEST(Upstream, AnswersLikeTheServerItFronts) {
  ServedEngine origin(local_engine());
  auto upstream = engine::upstream::UpstreamEngine::create({origin.url(), "", "", 60});
  ASSERT_TRUE(upstream.ok()) << upstream.error().message;
  EXPECT_EQ((*upstream)->model().id, origin.engine->model().id);
  EXPECT_TRUE((*upstream)->model().meaningless_text);
  ServedEngine front(std::move(upstream).value());

  const auto direct = testing::http_request(origin.server->port(), "POST", "/v1/chat/completions",
                                            chat_body(16, false));
  const auto via = testing::http_request(front.server->port(), "POST", "/v1/chat/completions",
                                         chat_body(16, false));
  ASSERT_EQ(direct.status, 200);
  ASSERT_EQ(via.status, 200) << via.body;
  const auto a = json::parse(direct.body);
  const auto b = json::parse(via.body);
  EXPECT_EQ(a.at("choices").at(0).at("message").at("content"),
            b.at("choices").at(0).at("message").at("content"));
  EXPECT_EQ(b.at("usage").at("completion_tokens"), json::value(16));

  const auto streamed = testing::http_request(front.server->port(), "POST", "/v1/chat/completions",
                                              chat_body(16, true));
  ASSERT_EQ(streamed.status, 200);
  std::string joined;
  for (const auto& data : testing::sse_data(streamed.body)) {
    if (data == "[DONE]") break;
    const auto chunk = json::parse(data);
    const auto& choices = chunk.at("choices").as_array();
    if (choices.empty()) continue;
    if (const auto* c = choices[0].at("delta").as_object().if_contains("content"))
      joined += c->as_string();
  }
  EXPECT_EQ(json::value(joined), a.at("choices").at(0).at("message").at("content"));
}

TEST(Upstream, CancellingFrontCancelsTheOrigin) {
  ServedEngine origin(local_engine());
  auto upstream = engine::upstream::UpstreamEngine::create({origin.url(), "", "", 60});
  ASSERT_TRUE(upstream.ok());
  engine::Engine& front = **upstream;
  auto sink = std::make_shared<testing::CollectSink>();
  engine::GenerationRequest r;
  r.chat = true;
  r.messages = {{"user", "talk for a long time"}};
  r.max_tokens = 1000000;
  r.ignore_eos = true;
  auto id = front.submit(r, sink);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(sink->wait_pieces(3));
  EXPECT_EQ(origin.engine->stats().running, 1);
  front.cancel(*id);
  ASSERT_TRUE(sink->wait());
  EXPECT_EQ(sink->completion().reason, engine::FinishReason::kCancelled);
  EXPECT_EQ(testing::wait_until_idle(*origin.engine).running, 0);
  front.shutdown();
}

TEST(Upstream, UnreachableOrBadUrlsAreClearErrors) {
  auto bad = engine::upstream::UpstreamEngine::create({"ftp://x", "", "", 5});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("http://"), std::string::npos);
  auto down = engine::upstream::UpstreamEngine::create({"http://127.0.0.1:1", "", "", 5});
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.error().message.find("unreachable"), std::string::npos);
}

}  // namespace
}  // namespace supportd
