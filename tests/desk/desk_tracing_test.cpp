// A desk turn's trace: a customer's message sent with a traceparent is exported to a loopback
// collector and decoded by protoc with the official OTLP definitions; the turn's stages are
// spans under the request's SERVER span, in pipeline order, and the generation with its
// queue/prefill/decode hangs from the generate stage.
#include <gtest/gtest.h>

#include <algorithm>

#include <boost/json.hpp>

#include "core/http_url.h"
#include "desk_fixture.h"
#include "otlp_decode.h"
#include "otlp_text.h"

namespace supportd {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::DecodedSpan;

TEST(DeskTracing, AGeneratedTurnIsATreeOfStagesWithTheGenerationUnderGenerate) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  testing::TestCollector collector;
  obs::trace::TracerOptions options;
  obs::trace::ExporterOptions exporter;
  exporter.url = *parse_http_url(collector.url() + "/v1/traces", "collector");
  exporter.delay = 20ms;
  options.exporter = exporter;
  obs::trace::Tracer tracer(std::move(options), nullptr);
  testing::DeskServer server(/*generate=*/true, {}, {}, {}, &tracer);
  const std::string session = server.new_session();

  const std::string caller_trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  const std::string caller_span = "00f067aa0ba902b7";
  const auto r = testing::http_request(
      server.port(), "POST", "/v1/sessions/" + session + "/messages",
      json::serialize(json::object{{"text", "Compose a short poem about autumn leaves"}}),
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

}  // namespace
}  // namespace supportd
