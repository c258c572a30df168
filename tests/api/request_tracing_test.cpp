// Tracing at the API's edge, in process against the synthesized model: a chat completion sent
// with a traceparent is exported to a loopback collector, decoded by protoc with the official
// OTLP definitions, and its span tree checked (the caller's span as the server span's parent,
// HTTP and GenAI attributes, queue/prefill/decode, counts against the response's usage);
// responses carry traceparent; GET /v1/traces lists what was kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <thread>

#include "api/routes.h"
#include "core/http_url.h"
#include "engine/llama/llama_engine.h"
#include "http/server.h"
#include "http_client.h"
#include "obs/trace/tracer.h"
#include "otlp_decode.h"
#include "otlp_text.h"
#include "test_model.h"

namespace supportd {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::DecodedSpan;

constexpr const char* kCallerTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
constexpr const char* kCallerSpan = "00f067aa0ba902b7";

class RequestTracing : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    engine::llama::EngineOptions options;
    options.model_path = testing::synthesized_model();
    options.threads = 0;
    options.parallel = 4;
    options.step_tokens = 64;  // the test's prompt (over 100 tokens) takes several chunks
    auto created = engine::llama::LlamaEngine::create(options);
    ASSERT_TRUE(created.ok()) << created.error().message;
    engine_ = std::move(created).value().release();
    for (int i = 0; i < 600 && !engine_->ready(); ++i)
      std::this_thread::sleep_for(10ms);
  }
  static void TearDownTestSuite() {
    engine_->shutdown();
    delete engine_;
  }

  // A server whose tracer exports to the collector; `slow_ms` decides what the ring keeps,
  // `sample_ratio` what the sampler keeps of the rest.
  void serve(double slow_ms, double sample_ratio = 1.0, std::size_t body_limit = 0) {
    obs::trace::TracerOptions options;
    options.slow_ms = slow_ms;
    options.sample_ratio = sample_ratio;
    auto url = parse_http_url(collector_.url() + "/v1/traces", "collector");
    ASSERT_TRUE(url);
    obs::trace::ExporterOptions exporter;
    exporter.url = *url;
    exporter.delay = 20ms;
    options.exporter = exporter;
    tracer_ = std::make_unique<obs::trace::Tracer>(std::move(options), nullptr);
    services_ = std::make_unique<api::Services>(api::Services{engine_});
    services_->tracer = tracer_.get();
    router_ = std::make_unique<http::Router>(api::make_router(*services_));
    http::ServerOptions server_options;
    server_options.port = 0;
    if (body_limit > 0) server_options.body_limit = body_limit;
    server_ =
        std::make_unique<http::Server>(api::serve_routes_with(*services_, server_options),
                                       [this](http::Request& r) { return router_->dispatch(r); });
    ASSERT_TRUE(server_->start().ok());
  }

  void TearDown() override {
    if (server_) server_->stop();
    if (tracer_) tracer_->shutdown(10s);
  }

  // Stops the server, flushes the tracer, and decodes everything the collector received.
  std::vector<DecodedSpan> exported() {
    server_->stop();
    tracer_->shutdown(10s);
    return testing::collected_spans(collector_);
  }

  static std::string chat_body(int max_tokens, bool stream) {
    std::string question;
    for (int i = 0; i < 6; ++i)
      question += "where is my parcel? it was sent last week and the tracking page says nothing. ";
    return json::serialize(json::object{
        {"model", engine_->model().id},
        {"messages", json::array{json::object{{"role", "user"}, {"content", question}}}},
        {"max_tokens", max_tokens},
        {"temperature", 0},
        {"ignore_eos", true},
        {"stream", stream}});
  }

  static const DecodedSpan* named(const std::vector<DecodedSpan>& spans, const std::string& name) {
    for (const auto& span : spans)
      if (span.name == name) return &span;
    return nullptr;
  }

  static engine::llama::LlamaEngine* engine_;
  testing::TestCollector collector_;
  std::unique_ptr<obs::trace::Tracer> tracer_;
  std::unique_ptr<api::Services> services_;
  std::unique_ptr<http::Router> router_;
  std::unique_ptr<http::Server> server_;
};

engine::llama::LlamaEngine* RequestTracing::engine_ = nullptr;

TEST_F(RequestTracing, AChatCompletionExportsItsSpanTreeUnderTheCallersSpan) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  serve(60000);
  const std::string parent = std::string("00-") + kCallerTrace + "-" + kCallerSpan + "-01";
  const auto r =
      testing::http_request(server_->port(), "POST", "/v1/chat/completions", chat_body(5, false),
                            {{"traceparent", parent}, {"tracestate", "vendor=abc"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string answered = r.header("traceparent");
  ASSERT_EQ(answered.size(), 55u) << answered;
  EXPECT_EQ(answered.substr(0, 36), std::string("00-") + kCallerTrace + "-");
  EXPECT_NE(answered.substr(36, 16), kCallerSpan);  // the server span's own id
  EXPECT_EQ(answered.substr(53), "01");
  const json::object usage = json::parse(r.body).at("usage").as_object();

  const auto spans = exported();
  const DecodedSpan* server = named(spans, "POST /v1/chat/completions");
  ASSERT_NE(server, nullptr) << spans.size() << " spans exported";
  EXPECT_EQ(server->trace_id, kCallerTrace);
  EXPECT_EQ(server->parent_span_id, kCallerSpan);
  EXPECT_EQ(server->span_id, answered.substr(36, 16));
  EXPECT_EQ(server->trace_state, "vendor=abc");
  EXPECT_EQ(server->kind, "SPAN_KIND_SERVER");
  EXPECT_EQ(server->attributes.at("http.request.method"), "POST");
  EXPECT_EQ(server->attributes.at("http.route"), "/v1/chat/completions");
  EXPECT_EQ(server->attributes.at("url.path"), "/v1/chat/completions");
  EXPECT_EQ(server->attributes.at("http.response.status_code"), "200");
  EXPECT_EQ(server->attributes.at("client.address"), "127.0.0.1");

  const DecodedSpan* generation = named(spans, "chat " + engine_->model().id);
  ASSERT_NE(generation, nullptr);
  EXPECT_EQ(generation->parent_span_id, server->span_id);
  EXPECT_EQ(generation->trace_id, kCallerTrace);
  const auto& a = generation->attributes;
  EXPECT_EQ(a.at("gen_ai.operation.name"), "chat");
  EXPECT_EQ(a.at("gen_ai.request.model"), engine_->model().id);
  EXPECT_EQ(a.at("gen_ai.request.max_tokens"), "5");
  EXPECT_EQ(a.at("gen_ai.usage.input_tokens"),
            std::to_string(usage.at("prompt_tokens").as_int64()));
  EXPECT_EQ(a.at("gen_ai.usage.output_tokens"),
            std::to_string(usage.at("completion_tokens").as_int64()));
  EXPECT_EQ(a.at("gen_ai.response.finish_reasons"), "length");
  EXPECT_TRUE(a.contains("gen_ai.usage.cache_read.input_tokens"));
  EXPECT_TRUE(a.contains("gen_ai.latency.time_in_queue"));
  EXPECT_TRUE(a.contains("gen_ai.latency.time_to_first_token"));
  EXPECT_EQ(a.at("supportd.priority"), "normal");

  // Exactly one queue, prefill and decode, children of the generation, in that order.
  std::vector<const DecodedSpan*> phases;
  for (const auto& span : spans)
    if (span.parent_span_id == generation->span_id) phases.push_back(&span);
  ASSERT_EQ(phases.size(), 3u);
  std::sort(phases.begin(), phases.end(),
            [](auto* x, auto* y) { return x->start_ns < y->start_ns; });
  EXPECT_EQ(phases[0]->name, "queue");
  EXPECT_EQ(phases[1]->name, "prefill");
  EXPECT_EQ(phases[2]->name, "decode");
  for (const DecodedSpan* phase : phases) {
    EXPECT_GE(phase->start_ns, generation->start_ns) << phase->name;
    EXPECT_LE(phase->end_ns, generation->end_ns) << phase->name;
  }
  const auto& prefill = phases[1]->attributes;
  EXPECT_EQ(std::stoll(prefill.at("supportd.prefill.tokens_computed")) +
                std::stoll(prefill.at("supportd.prefill.tokens_reused")),
            usage.at("prompt_tokens").as_int64());
  // The prompt is longer than a step's 64 tokens: several chunks, each an event.
  EXPECT_GE(std::stoll(prefill.at("supportd.prefill.chunks")), 2);
  EXPECT_EQ(phases[2]->attributes.at("supportd.decode.tokens"),
            std::to_string(usage.at("completion_tokens").as_int64()));
}

// A request nothing but the exporter reads (sampled, neither failed nor slow, no part left
// running) has its SERVER span encoded where it is described, never made as a record: the
// collector must see the same span, every attribute included.
TEST_F(RequestTracing, ARequestOnlyExportedHasItsServerSpanWrittenWhole) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  serve(60000);
  const std::string parent = std::string("00-") + kCallerTrace + "-" + kCallerSpan + "-01";
  const auto r = testing::http_request(server_->port(), "GET", "/v1/models", "",
                                       {{"traceparent", parent},
                                        {"tracestate", "vendor=abc"},
                                        {"user-agent", "probe/1.0"},
                                        {"x-request-id", "order-42"}});
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string answered = r.header("traceparent");
  ASSERT_EQ(answered.size(), 55u) << answered;

  const auto spans = exported();
  ASSERT_EQ(spans.size(), 1u);  // the route makes no span of its own
  const DecodedSpan& server = spans.front();
  EXPECT_EQ(server.name, "GET /v1/models");
  EXPECT_EQ(server.trace_id, kCallerTrace);
  EXPECT_EQ(server.span_id, answered.substr(36, 16));
  EXPECT_EQ(server.parent_span_id, kCallerSpan);
  EXPECT_EQ(server.trace_state, "vendor=abc");
  EXPECT_EQ(server.kind, "SPAN_KIND_SERVER");
  EXPECT_EQ(server.status_code, "");
  EXPECT_TRUE(server.events.empty());
  EXPECT_LT(server.start_ns, server.end_ns);
  const std::map<std::string, std::string> expected{
      {"http.request.method", "GET"},
      {"url.path", "/v1/models"},
      {"url.scheme", "http"},
      {"http.route", "/v1/models"},
      {"network.protocol.version", "1.1"},
      {"client.address", "127.0.0.1"},
      {"user_agent.original", "probe/1.0"},
      {"http.response.status_code", "200"},
      {"http.response.body.size", std::to_string(r.body.size())},
      {"supportd.request_id", "order-42"}};
  EXPECT_EQ(server.attributes, expected);
  const auto trace_id = obs::trace::TraceId::from_hex(server.trace_id);
  ASSERT_TRUE(trace_id);
  EXPECT_EQ(tracer_->ring().find(*trace_id), nullptr);  // exported, not kept
}

// A kept-alive connection's requests reuse one watch and one trace object (no allocation on
// the path): nothing of one request may reach the next.
TEST_F(RequestTracing, RequestsOnOneConnectionEachGetATraceOfTheirOwn) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  serve(60000);
  testing::Connection connection(server_->port());
  const std::string parent = std::string("00-") + kCallerTrace + "-" + kCallerSpan + "-01";
  ASSERT_TRUE(connection.send("GET /v1/models HTTP/1.1\r\nHost: x\r\ntraceparent: " + parent +
                              "\r\ntracestate: vendor=abc\r\nUser-Agent: probe/1.0\r\n"
                              "X-Request-Id: order-42\r\n\r\n"));
  const auto first = connection.read_response();
  ASSERT_EQ(first.status, 200);
  ASSERT_TRUE(connection.send("GET /v1/nothing-here HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto second = connection.read_response();
  ASSERT_EQ(second.status, 404);
  ASSERT_TRUE(connection.send("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto third = connection.read_response();
  ASSERT_EQ(third.status, 200);
  EXPECT_EQ(first.header("x-request-id"), "order-42");
  for (const auto* r : {&second, &third}) {
    const std::string answered = r->header("traceparent");
    ASSERT_EQ(answered.size(), 55u);
    EXPECT_NE(answered.substr(3, 32), kCallerTrace);  // a trace of its own
    EXPECT_EQ(r->header("x-request-id"), answered.substr(36, 16));
  }
  EXPECT_NE(second.header("traceparent").substr(3, 32), third.header("traceparent").substr(3, 32));
  connection.close();

  const auto spans = exported();
  ASSERT_EQ(spans.size(), 3u);
  std::map<std::string, const DecodedSpan*> by_trace;
  for (const auto& span : spans)
    by_trace[span.trace_id] = &span;
  const DecodedSpan* caller = by_trace[kCallerTrace];
  ASSERT_NE(caller, nullptr);
  EXPECT_EQ(caller->attributes.at("supportd.request_id"), "order-42");
  const DecodedSpan* missing = by_trace[second.header("traceparent").substr(3, 32)];
  ASSERT_NE(missing, nullptr);
  EXPECT_EQ(missing->name, "GET");  // no route matched
  EXPECT_EQ(missing->attributes.at("error.type"), "404");
  const DecodedSpan* plain = by_trace[third.header("traceparent").substr(3, 32)];
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->name, "GET /v1/models");
  EXPECT_EQ(plain->parent_span_id, "");
  EXPECT_EQ(plain->trace_state, "");
  EXPECT_EQ(plain->status_code, "");
  for (const char* key : {"supportd.request_id", "user_agent.original", "error.type"})
    EXPECT_FALSE(plain->attributes.contains(key)) << key;
}

TEST_F(RequestTracing, AMissingOrMalformedTraceparentStartsANewTraceNeverAnError) {
  serve(60000);
  for (const std::string bad : {"", "00-zz-00f067aa0ba902b7-01",
                                "00-00000000000000000000000000000000-00f067aa0ba902b7-01"}) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!bad.empty()) headers.emplace_back("traceparent", bad);
    const auto r = testing::http_request(server_->port(), "GET", "/v1/models", "", headers);
    EXPECT_EQ(r.status, 200) << bad;
    const std::string answered = r.header("traceparent");
    ASSERT_EQ(answered.size(), 55u) << bad;
    EXPECT_EQ(answered.substr(0, 3), "00-");
    EXPECT_NE(answered.substr(3, 32), "00000000000000000000000000000000");
    EXPECT_FALSE(r.header("x-request-id").empty());
  }
  // A streamed answer carries it too, in the head of its event stream.
  const auto streamed =
      testing::http_request(server_->port(), "POST", "/v1/chat/completions", chat_body(3, true));
  EXPECT_EQ(streamed.status, 200);
  EXPECT_EQ(streamed.header("traceparent").size(), 55u);
}

TEST_F(RequestTracing, RefusedRequestsAreKeptWithErrorTypeAndOnlyA5xxIsAnError) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  serve(60000, /*sample_ratio=*/0);  // nothing sampled, nothing slow: only failures are kept
  EXPECT_EQ(testing::http_request(server_->port(), "GET", "/v1/models").status, 200);
  const auto bad = testing::http_request(server_->port(), "POST", "/v1/chat/completions", "{");
  ASSERT_EQ(bad.status, 400) << bad.body;
  const auto missing = testing::http_request(server_->port(), "GET", "/v1/no-such-route");
  ASSERT_EQ(missing.status, 404);

  // Listed among the failed requests an operator sees.
  const std::string bad_trace = bad.header("traceparent").substr(3, 32);
  json::object listed;
  for (int i = 0; i < 200 && listed.empty(); ++i) {
    const json::value body =
        json::parse(testing::http_request(server_->port(), "GET", "/v1/traces?limit=50").body);
    for (const auto& t : body.at("traces").as_array())
      if (t.at("trace_id").as_string() == bad_trace) listed = t.as_object();
    if (listed.empty()) std::this_thread::sleep_for(10ms);
  }
  ASSERT_FALSE(listed.empty()) << "the 400 was never listed";
  EXPECT_EQ(listed.at("reason").as_string(), "error");
  EXPECT_EQ(listed.at("status").as_int64(), 400);

  // Exported although the sampler kept nothing: error.type set, status not an error.
  const auto spans = exported();
  std::map<std::string, const DecodedSpan*> roots;
  for (const auto& span : spans)
    if (span.kind == "SPAN_KIND_SERVER")
      roots[span.attributes.at("http.response.status_code")] = &span;
  EXPECT_FALSE(roots.contains("200"));  // neither sampled nor failed: dropped
  for (const char* status : {"400", "404"}) {
    ASSERT_TRUE(roots.contains(status)) << status;
    EXPECT_EQ(roots[status]->attributes.at("error.type"), status);
    EXPECT_EQ(roots[status]->status_code, "") << status;  // unset: the caller's fault
  }
}

TEST_F(RequestTracing, AnAnswerGivenBeforeAnyRouteIsTracedToo) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  serve(60000, /*sample_ratio=*/0, /*body_limit=*/64);  // only failures are kept
  const std::string caller = std::string("00-") + kCallerTrace + "-" + kCallerSpan + "-01";
  const auto refused = testing::http_request(server_->port(), "POST", "/v1/chat/completions",
                                             std::string(200, 'x'), {{"traceparent", caller}});
  ASSERT_EQ(refused.status, 413) << refused.body;
  // The connection refused it while reading its body: the answer still continues the caller's
  // trace, with a span of its own.
  const std::string parent = refused.header("traceparent");
  ASSERT_EQ(parent.size(), 55u) << parent;
  EXPECT_EQ(parent.substr(3, 32), kCallerTrace);
  EXPECT_NE(parent.substr(36, 16), kCallerSpan);
  EXPECT_EQ(refused.header("x-request-id"), parent.substr(36, 16));

  const auto spans = exported();
  const auto span = std::find_if(spans.begin(), spans.end(), [&](const DecodedSpan& s) {
    return s.span_id == parent.substr(36, 16);
  });
  ASSERT_NE(span, spans.end()) << spans.size() << " spans";
  EXPECT_EQ(span->kind, "SPAN_KIND_SERVER");
  EXPECT_EQ(span->parent_span_id, kCallerSpan);
  EXPECT_EQ(span->name, "POST");  // no route was matched
  EXPECT_EQ(span->attributes.at("http.response.status_code"), "413");
  EXPECT_EQ(span->attributes.at("error.type"), "413");
  EXPECT_EQ(span->attributes.at("url.path"), "/v1/chat/completions");
}

TEST_F(RequestTracing, ARequestWhoseTargetIsNoPathIsTracedWithItsMethod) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  serve(60000, /*sample_ratio=*/0);  // only failures are kept
  const std::string caller = std::string("00-") + kCallerTrace + "-" + kCallerSpan + "-01";
  // Refused once the request was read whole: its head (method, fields) is still the answer's.
  const auto refused = testing::http_request(server_->port(), "GET", "http://example.com/v1/models",
                                             "", {{"traceparent", caller}});
  ASSERT_EQ(refused.status, 400) << refused.body;
  const std::string parent = refused.header("traceparent");
  ASSERT_EQ(parent.size(), 55u) << parent;
  EXPECT_EQ(parent.substr(3, 32), kCallerTrace);

  const auto spans = exported();
  const auto span = std::find_if(spans.begin(), spans.end(), [&](const DecodedSpan& s) {
    return s.span_id == parent.substr(36, 16);
  });
  ASSERT_NE(span, spans.end()) << spans.size() << " spans";
  EXPECT_EQ(span->parent_span_id, kCallerSpan);
  EXPECT_EQ(span->name, "GET");  // no route, but the method was read
  EXPECT_EQ(span->attributes.at("http.response.status_code"), "400");
}

TEST_F(RequestTracing, SlowRequestsAreListedWithTheirStagesAndShownWhole) {
  serve(0.001);  // every request is slow
  const auto r = testing::http_request(server_->port(), "POST", "/v1/chat/completions",
                                       chat_body(3, false), {{"x-request-id", "order-42"}});
  ASSERT_EQ(r.status, 200);
  const std::string trace_id = r.header("traceparent").substr(3, 32);

  // The request's trace is finished when its last part ends, just after the answer.
  json::object listed;
  for (int i = 0; i < 200; ++i) {
    const auto list = testing::http_request(server_->port(), "GET", "/v1/traces?limit=50");
    ASSERT_EQ(list.status, 200) << list.body;
    const json::value body = json::parse(list.body);  // outlives the loop over its parts
    for (const auto& t : body.at("traces").as_array())
      if (t.at("trace_id").as_string() == trace_id) listed = t.as_object();
    if (!listed.empty()) break;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_FALSE(listed.empty()) << "trace " << trace_id << " never listed";
  EXPECT_EQ(listed.at("name").as_string(), "POST /v1/chat/completions");
  EXPECT_EQ(listed.at("reason").as_string(), "slow");
  EXPECT_EQ(listed.at("request_id").as_string(), "order-42");
  EXPECT_EQ(listed.at("status").as_int64(), 200);
  const auto& stages = listed.at("stages").as_array();
  ASSERT_EQ(stages.size(), 1u);
  EXPECT_EQ(stages[0].at("name").as_string(), "chat " + engine_->model().id);

  const auto one = testing::http_request(server_->port(), "GET", "/v1/traces/" + trace_id);
  ASSERT_EQ(one.status, 200) << one.body;
  std::vector<std::string> names;
  const json::value whole = json::parse(one.body);
  for (const auto& span : whole.at("spans").as_array())
    names.emplace_back(span.at("name").as_string());
  for (const char* phase : {"queue", "prefill", "decode"})
    EXPECT_NE(std::find(names.begin(), names.end(), phase), names.end()) << phase;

  EXPECT_EQ(
      testing::http_request(server_->port(), "GET", "/v1/traces/0123456789abcdef0123456789abcdef")
          .status,
      404);
  EXPECT_EQ(testing::http_request(server_->port(), "GET", "/v1/traces/not-an-id").status, 400);
  EXPECT_EQ(testing::http_request(server_->port(), "GET", "/v1/traces?limit=0").status, 400);
}

}  // namespace
}  // namespace supportd
