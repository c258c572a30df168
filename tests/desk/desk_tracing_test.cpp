// A desk turn's trace: a customer's message sent with a traceparent is exported to a loopback
// collector and decoded by protoc with the official OTLP definitions; the turn's stages are
// spans under the request's SERVER span, in pipeline order, with the session store's calls and
// retrieval's components under theirs, and the generation with its queue/prefill/decode hangs
// from the generate stage. Over a WebSocket, each message is a trace of its own linked to the
// handshake, with the same stages and the answer's push.
#include <gtest/gtest.h>

#include <algorithm>

#include <boost/json.hpp>

#include "core/http_url.h"
#include "demo_questions.h"
#include "desk_fixture.h"
#include "otlp_decode.h"
#include "otlp_text.h"
#include "websocket_client.h"

namespace supportd {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::DecodedSpan;

// Tracing that exports everything it keeps to `collector`, promptly.
obs::trace::TracerOptions exporting_to(const testing::TestCollector& collector) {
  obs::trace::TracerOptions options;
  obs::trace::ExporterOptions exporter;
  exporter.url = *parse_http_url(collector.url() + "/v1/traces", "collector");
  exporter.delay = 20ms;
  options.exporter = exporter;
  return options;
}

TEST(DeskTracing, AGeneratedTurnIsATreeOfStagesWithTheGenerationUnderGenerate) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  testing::TestCollector collector;
  obs::trace::Tracer tracer(exporting_to(collector), nullptr);
  testing::DeskServer server({.generate = true, .tracer = &tracer});
  const std::string session = server.new_session();

  const std::string caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  const std::string caller_span = "00f067aa0ba902b7";
  const auto r =
      testing::http_request(server.port(), "POST", "/v1/sessions/" + session + "/messages",
                            json::serialize(json::object{{"text", testing::uncovered_question()}}),
                            {{"traceparent", "00-" + caller_trace + "-" + caller_span + "-01"}});
  ASSERT_EQ(r.status, 200) << r.body;
  ASSERT_EQ(json::parse(r.body).at("answer").at("source"), json::value("model")) << r.body;
  server.stop();
  tracer.shutdown(10s);

  const auto spans = testing::collected_spans(collector);
  const auto server_span = std::find_if(spans.begin(), spans.end(), [&](const DecodedSpan& s) {
    return s.trace_id == caller_trace && s.parent_span_id == caller_span;
  });
  ASSERT_NE(server_span, spans.end()) << spans.size() << " spans";
  EXPECT_EQ(server_span->name, "POST /v1/sessions/{session}/messages");
  EXPECT_EQ(server_span->kind, "SPAN_KIND_SERVER");
  EXPECT_EQ(server_span->attributes.at("http.route"), "/v1/sessions/{session}/messages");

  // The stages, children of the server span, in the order they ran.
  std::vector<const DecodedSpan*> stages;
  for (const auto& s : spans)
    if (s.parent_span_id == server_span->span_id) stages.push_back(&s);
  std::sort(stages.begin(), stages.end(),
            [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
  std::vector<std::string> names;
  for (const auto* s : stages)
    names.push_back(s->name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"validate", "safety", "store", "handoff", "faq", "cache",
                                      "retrieval", "prompt", "generate", "postprocess"}));
  // The store stage's write to the session store (embedded SQLite): a database CLIENT span.
  const auto store =
      std::find_if(stages.begin(), stages.end(), [](auto* s) { return s->name == "store"; });
  ASSERT_NE(store, stages.end());
  const auto write = std::find_if(spans.begin(), spans.end(), [&](const DecodedSpan& s) {
    return s.parent_span_id == (*store)->span_id && s.name == "INSERT messages";
  });
  ASSERT_NE(write, spans.end());
  EXPECT_EQ(write->kind, "SPAN_KIND_CLIENT");
  EXPECT_EQ(write->attributes.at("db.system.name"), "sqlite");
  EXPECT_EQ(write->attributes.at("db.operation.name"), "INSERT");
  EXPECT_EQ(write->attributes.at("db.query.summary"), "INSERT messages");
  EXPECT_TRUE(write->attributes.at("db.namespace").ends_with(".sqlite"));
  EXPECT_EQ(write->status_code, "");
  // Retrieval's components, each a child of its stage (no encoder here: lexical only).
  const auto retrieval =
      std::find_if(stages.begin(), stages.end(), [](auto* s) { return s->name == "retrieval"; });
  ASSERT_NE(retrieval, stages.end());
  std::vector<std::string> components;
  for (const auto& s : spans)
    if (s.parent_span_id == (*retrieval)->span_id) components.push_back(s.name);
  EXPECT_NE(std::find(components.begin(), components.end(), "bm25"), components.end());
  for (const auto& component : components) {
    EXPECT_TRUE(component == "bm25" || component == "fasttext" || component == "encoder knn" ||
                component == "encoder head" || component == "encode question")
        << component;
  }
  const auto generate =
      std::find_if(stages.begin(), stages.end(), [](auto* s) { return s->name == "generate"; });
  ASSERT_NE(generate, stages.end());

  // The generation under generate; queue, prefill and decode under it.
  const auto generation = std::find_if(spans.begin(), spans.end(), [&](const DecodedSpan& s) {
    return s.parent_span_id == (*generate)->span_id;
  });
  ASSERT_NE(generation, spans.end());
  EXPECT_EQ(generation->attributes.at("gen_ai.operation.name"), "chat");
  EXPECT_TRUE(generation->attributes.contains("gen_ai.usage.output_tokens"));
  std::vector<std::string> phases;
  for (const auto& s : spans)
    if (s.parent_span_id == generation->span_id) phases.push_back(s.name);
  std::sort(phases.begin(), phases.end());
  EXPECT_EQ(phases, (std::vector<std::string>{"decode", "prefill", "queue"}));
  // Every span of the turn's request is in the caller's trace (the session's creation before
  // it, with its store call, is a trace of its own).
  const auto creation = std::find_if(spans.begin(), spans.end(), [](const DecodedSpan& s) {
    return s.name == "POST /v1/sessions";
  });
  ASSERT_NE(creation, spans.end());
  for (const auto& s : spans) {
    if (s.trace_id != creation->trace_id) {
      EXPECT_EQ(s.trace_id, caller_trace) << s.name;
    }
  }
}

TEST(DeskTracing, EachWebSocketMessageIsATraceLinkedToTheHandshake) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  testing::TestCollector collector;
  obs::trace::TracerOptions options = exporting_to(collector);
  options.sample_ratio = 0;  // only the caller's sampled flag samples anything
  options.slow_ms = 0;       // nothing is slow
  obs::trace::Tracer tracer(std::move(options), nullptr);
  testing::DeskServer server({.tracer = &tracer});
  const std::string session = server.new_session();

  const std::string caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  const std::string caller_span = "00f067aa0ba902b7";
  std::string handshake_traceparent;
  {
    testing::WebSocketClient socket(
        server.port(), "/v1/ws?session=" + session,
        {{"traceparent", "00-" + caller_trace + "-" + caller_span + "-01"}});
    // The 101 carries the handshake's own span, in the caller's trace, as every answer does.
    handshake_traceparent = socket.handshake_header("traceparent");
    EXPECT_EQ(handshake_traceparent.substr(0, 36), "00-" + caller_trace + "-");
    EXPECT_EQ(socket.handshake_header("X-Request-Id"), handshake_traceparent.substr(36, 16));
    for (const char* question : {"Where is my parcel?", "How do I return an item?"}) {
      socket.send(json::serialize(json::object{{"type", "message"}, {"text", question}}));
      ASSERT_EQ(socket.receive_until("done").back().at("type"), json::value("done"));
    }
    socket.send(R"({"type":"ping"})");  // a heartbeat: no trace
    ASSERT_EQ(socket.receive().at("type"), json::value("pong"));
    socket.send("not json");
    ASSERT_EQ(socket.receive().at("code"), json::value("invalid_message"));
  }
  server.stop();
  tracer.shutdown(10s);

  const auto spans = testing::collected_spans(collector);
  const auto handshake = std::find_if(spans.begin(), spans.end(), [&](const DecodedSpan& s) {
    return s.trace_id == caller_trace && s.parent_span_id == caller_span;
  });
  ASSERT_NE(handshake, spans.end()) << spans.size() << " spans";
  EXPECT_EQ(handshake->name, "GET /v1/ws");
  EXPECT_EQ(handshake_traceparent, "00-" + caller_trace + "-" + handshake->span_id + "-01");

  std::vector<const DecodedSpan*> messages;
  for (const auto& s : spans)
    if (s.name == "WS message /v1/ws") messages.push_back(&s);
  ASSERT_EQ(messages.size(), 3u);  // two questions and the garbage; the ping is not traced
  std::sort(messages.begin(), messages.end(),
            [](auto* a, auto* b) { return a->start_ns < b->start_ns; });
  for (const DecodedSpan* message : messages) {
    EXPECT_EQ(message->kind, "SPAN_KIND_SERVER");
    EXPECT_EQ(message->parent_span_id, "");  // a trace of its own...
    EXPECT_NE(message->trace_id, caller_trace);
    // ...that links to the handshake's span in the caller's trace.
    EXPECT_EQ(message->links, (std::vector<std::string>{caller_trace + "-" + handshake->span_id}));
    EXPECT_EQ(message->attributes.at("http.route"), "/v1/ws");
    EXPECT_EQ(message->attributes.at("network.protocol.name"), "websocket");
  }
  EXPECT_NE(messages[0]->trace_id, messages[1]->trace_id);

  // An answered message: the turn's stages under it, then the answer's push; sampled as the
  // handshake was (the ratio is 0), no error.
  for (int i = 0; i < 2; ++i) {
    const DecodedSpan& message = *messages[i];
    EXPECT_EQ(message.status_code, "");
    EXPECT_FALSE(message.attributes.contains("error.type"));
    std::vector<std::string> children;
    for (const auto& s : spans) {
      if (s.parent_span_id != message.span_id) continue;
      EXPECT_EQ(s.trace_id, message.trace_id) << s.name;
      children.push_back(s.name);
    }
    for (const char* stage : {"validate", "safety", "store", "push /v1/ws"})
      EXPECT_NE(std::find(children.begin(), children.end(), stage), children.end()) << stage;
    const auto push = std::find_if(spans.begin(), spans.end(), [&](const DecodedSpan& s) {
      return s.parent_span_id == message.span_id && s.name == "push /v1/ws";
    });
    ASSERT_NE(push, spans.end());
    EXPECT_GE(std::stoll(push->attributes.at("supportd.websocket.messages")), 2);  // ... done
    EXPECT_LE(push->end_ns, message.end_ns);
  }
  // The garbage: refused like a 4xx (error.type, no error status).
  EXPECT_EQ(messages[2]->attributes.at("error.type"), "invalid_message");
  EXPECT_EQ(messages[2]->status_code, "");
}

}  // namespace
}  // namespace supportd
