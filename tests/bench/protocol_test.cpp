// What goes over the wire: the target URL, the request the client builds, the streamed answer
// it reads, and the server queue gauges it polls.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "bench/request_builder.h"
#include "bench/server_stats.h"
#include "bench/stream_reader.h"
#include "bench/target.h"

namespace supportd::bench {
namespace {

namespace json = boost::json;

TEST(Target, ParsesBaseUrls) {
  auto t = parse_target("http://127.0.0.1:8080");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->host, "127.0.0.1");
  EXPECT_EQ(t->port, "8080");
  EXPECT_EQ(t->path("/v1/models"), "/v1/models");
  t = parse_target("http://localhost/v1/");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->port, "80");
  EXPECT_EQ(t->path("/v1/models"), "/v1/models");
  t = parse_target("http://[::1]:9000/llm/v1");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->host, "::1");
  EXPECT_EQ(t->path("/v1/stats"), "/llm/v1/stats");
  EXPECT_EQ(parse_target("https://x").error().code, ErrorCode::kUnsupported);
  for (const std::string bad :
       {"127.0.0.1:8080", "http://", "http://h:99999", "http://h:x", "http://u:p@h"}) {
    EXPECT_FALSE(parse_target(bad).ok()) << bad;
  }
}

TEST(RequestBuilder, ChatRequestCarriesEverythingTheBenchmarkNeeds) {
  BenchOptions options;
  options.workload.system_prompt_tokens = 12;
  options.workload.tenants = {{"acme", "sk-acme", 1}};
  options.start_timeout_s = 2.5;
  const Workload workload(options.workload);
  RequestSpec spec;
  spec.priority = sched::Priority::kHigh;
  spec.tenant = 0;
  spec.question = 7;
  spec.question_words = 20;
  spec.max_tokens = 33;
  const HttpRequestParts parts = build_request(options, "m1", workload, spec);
  EXPECT_EQ(parts.path, "/v1/chat/completions");
  const json::object body = json::parse(parts.body).as_object();
  EXPECT_EQ(body.at("model"), "m1");
  EXPECT_EQ(body.at("stream"), true);
  EXPECT_EQ(body.at("stream_options").at("include_usage"), true);
  EXPECT_EQ(body.at("max_tokens"), 33);
  EXPECT_EQ(body.at("ignore_eos"), true);
  EXPECT_EQ(body.at("priority"), "high");
  EXPECT_DOUBLE_EQ(body.at("timeout").as_double(), 2.5);
  const json::array& messages = body.at("messages").as_array();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].at("role"), "system");
  EXPECT_EQ(messages[0].at("content"), json::value(workload.system_prompt()));
  EXPECT_EQ(messages[1].at("content"), json::value(workload.question_text(spec)));
  auto header = [&](const std::string& name) {
    for (const auto& [n, v] : parts.headers)
      if (n == name) return v;
    return std::string("(absent)");
  };
  EXPECT_EQ(header("X-Priority"), "high");
  EXPECT_EQ(header("Authorization"), "Bearer sk-acme");

  options.chat = false;
  options.priority_field = false;
  options.start_timeout_s.reset();
  options.api_key = "sk-all";
  spec.tenant = -1;
  const HttpRequestParts completion = build_request(options, "", workload, spec);
  EXPECT_EQ(completion.path, "/v1/completions");
  const json::object plain = json::parse(completion.body).as_object();
  EXPECT_FALSE(plain.contains("model"));
  EXPECT_FALSE(plain.contains("priority"));
  EXPECT_FALSE(plain.contains("timeout"));
  EXPECT_EQ(plain.at("prompt"),
            json::value(workload.system_prompt() + "\n\n" + workload.question_text(spec)));
  bool has_key = false;
  for (const auto& [n, v] : completion.headers)
    has_key |= n == "Authorization" && v == "Bearer sk-all";
  EXPECT_TRUE(has_key);
}

TEST(StreamReader, CountsContentEventsAndKeepsUsage) {
  StreamReader chat;
  chat.on_event(R"({"choices":[{"index":0,"delta":{"role":"assistant"}}]})", 0.01f);
  chat.on_event(R"({"choices":[{"index":0,"delta":{"content":"Hel"}}]})", 0.02f);
  chat.on_event(R"({"choices":[{"index":0,"delta":{"content":"lo"}}]})", 0.03f);
  chat.on_event(R"({"choices":[{"index":0,"delta":{},"finish_reason":"length"}]})", 0.04f);
  chat.on_event(R"({"choices":[],"usage":{"prompt_tokens":30,"completion_tokens":2,)"
                R"("prompt_tokens_details":{"cached_tokens":12}}})",
                0.04f);
  EXPECT_FALSE(chat.done());
  chat.on_event("[DONE]", 0.05f);
  EXPECT_TRUE(chat.done());
  EXPECT_FALSE(chat.failed());
  ASSERT_EQ(chat.token_times().size(), 2u);
  EXPECT_FLOAT_EQ(chat.token_times()[0], 0.02f);
  EXPECT_EQ(chat.prompt_tokens(), 30);
  EXPECT_EQ(chat.completion_tokens(), 2);
  EXPECT_EQ(chat.cached_tokens(), 12);
  EXPECT_EQ(chat.queued_ms(), -1);  // not a supportd answer
  EXPECT_EQ(chat.model(), "");      // no chunk named one

  StreamReader timed;  // supportd's last chunk carries its timings
  timed.on_event(R"({"choices":[{"index":0,"delta":{"content":"Hi"}}]})", 0.02f);
  timed.on_event(R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],)"
                 R"("timings":{"queued_ms":37.5,"first_token_ms":80.0,"total_ms":120.0}})",
                 0.03f);
  EXPECT_DOUBLE_EQ(timed.queued_ms(), 37.5);

  StreamReader routed;  // a model router names the version in every chunk
  routed.on_event(R"({"model":"v2","choices":[{"text":" a"}]})", 0.1f);
  routed.on_event(R"({"model":"v3","choices":[{"text":" b"}]})", 0.2f);
  EXPECT_EQ(routed.model(), "v2");

  StreamReader completion;
  completion.on_event(R"({"choices":[{"text":" a"}]})", 0.1f);
  completion.on_event(R"({"choices":[{"text":""}]})", 0.2f);
  EXPECT_EQ(completion.token_times().size(), 1u);
  EXPECT_EQ(completion.prompt_tokens(), -1);

  StreamReader failed;
  failed.on_event(R"({"error":{"message":"deadline","code":"deadline_exceeded"}})", 0.1f);
  failed.on_event("[DONE]", 0.2f);
  EXPECT_TRUE(failed.failed());
  EXPECT_EQ(failed.failure(), "stream_error:deadline_exceeded");

  StreamReader garbage;
  garbage.on_event("{not json", 0.1f);
  EXPECT_TRUE(garbage.failed());
  EXPECT_EQ(garbage.failure(), "bad_chunk");
}

TEST(StreamReader, ClassifiesRefusalsAndReadsRetryAfterAndModels) {
  EXPECT_EQ(response_kind(429, R"({"error":{"message":"full","code":"queue_full"}})"),
            "429:queue_full");
  EXPECT_EQ(response_kind(503, R"({"error":{"message":"x","type":"unavailable_error"}})"),
            "503:unavailable_error");
  EXPECT_EQ(response_kind(500, "<html>oops</html>"), "500");
  EXPECT_DOUBLE_EQ(parse_retry_after(" 3 "), 3);
  EXPECT_DOUBLE_EQ(parse_retry_after("0.5"), 0.5);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), -1);
  EXPECT_EQ(parse_retry_after(""), -1);
  EXPECT_EQ(*first_model_id(R"({"data":[{"id":"a"},{"id":"b"}]})"), "a");
  EXPECT_FALSE(first_model_id(R"({"data":[]})").ok());
  EXPECT_FALSE(first_model_id("nope").ok());
}

TEST(ServerStats, ReadsSupportdStatsAndPrometheusGauges) {
  const auto supportd =
      parse_supportd_stats(R"({"engine":{"running":4,"waiting":9},"classes":{"high":{"waiting":1},)"
                           R"("normal":{"waiting":6},"low":{"waiting":2}}})");
  ASSERT_TRUE(supportd.has_value());
  EXPECT_EQ(supportd->running, 4);
  EXPECT_EQ(supportd->waiting, 9);
  EXPECT_EQ(supportd->class_waiting[0], 1);
  EXPECT_EQ(supportd->class_waiting[2], 2);
  EXPECT_FALSE(parse_supportd_stats(R"({"status":"ok"})").has_value());

  const auto llama = parse_prometheus_queue(
      "# HELP llamacpp:requests_processing Number of requests processing.\n"
      "# TYPE llamacpp:requests_processing gauge\n"
      "llamacpp:requests_processing 3\n"
      "llamacpp:requests_deferred 11\n"
      "llamacpp:requests_deferred_total_x 99\n");
  ASSERT_TRUE(llama.has_value());
  EXPECT_STREQ(llama->server_kind, "llama.cpp");
  EXPECT_EQ(llama->sample.running, 3);
  EXPECT_EQ(llama->sample.waiting, 11);

  const auto vllm = parse_prometheus_queue(
      "vllm:num_requests_running{model_name=\"a\"} 2.0\n"
      "vllm:num_requests_running{model_name=\"b\"} 1.0 1700000000\n"
      "vllm:num_requests_waiting{model_name=\"a\"} 5.0\n");
  ASSERT_TRUE(vllm.has_value());
  EXPECT_STREQ(vllm->server_kind, "vllm");
  EXPECT_EQ(vllm->sample.running, 3);
  EXPECT_EQ(vllm->sample.waiting, 5);
  EXPECT_FALSE(parse_prometheus_queue("supportd_queue_depth 3\n").has_value());
}

}  // namespace
}  // namespace supportd::bench
