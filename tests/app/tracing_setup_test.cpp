// serve's tracing settings in-process: the trace section's flags and their ranges, the OTEL_*
// variables under the flags, the endpoint's /v1/traces, and both log formats naming the
// request a line is written for (JSON with personal data masked).
#include <gtest/gtest.h>

#include <map>

#include <spdlog/details/log_msg.h>
#include <CLI/CLI.hpp>
#include <boost/json.hpp>

#include "app/log_format.h"
#include "app/serve_config.h"
#include "app/tracing_setup.h"
#include "command_line.h"
#include "obs/trace/current.h"
#include "obs/trace/slow_log.h"

namespace supportd::app {
namespace {

Status serve(const std::vector<std::string>& args, ServeConfig& config) {
  CLI::App app;
  ServeOptions options(app, config);
  if (Status parsed = testing::parse_command_line(app, args); !parsed) return parsed;
  return options.finish();
}

Environment environment(std::map<std::string, std::string> variables) {
  return [variables = std::move(variables)](std::string_view name) {
    auto it = variables.find(std::string(name));
    return it == variables.end() ? std::string() : it->second;
  };
}

TEST(TracingSetup, TheTraceSectionsFlagsAndTheirRanges) {
  ServeConfig config;
  ASSERT_TRUE(serve({"--trace-sample", "0.25", "--trace-slow-ms", "300", "--otlp-endpoint",
                     "http://127.0.0.1:4318", "--log-format", "json", "--tracing", "on"},
                    config)
                  .ok());
  EXPECT_DOUBLE_EQ(config.tracing.sample_ratio, 0.25);
  EXPECT_DOUBLE_EQ(config.tracing.slow_ms, 300);
  EXPECT_EQ(config.tracing.otlp_endpoint, "http://127.0.0.1:4318");
  EXPECT_EQ(config.log_format, LogFormat::kJson);
  ServeConfig defaults;
  ASSERT_TRUE(serve({}, defaults).ok());
  EXPECT_TRUE(defaults.tracing.enabled);
  EXPECT_EQ(defaults.log_format, LogFormat::kText);

  for (const auto& [args, named] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--trace-sample", "1.5"}, "--trace-sample must be between 0 and 1"},
           {{"--trace-slow-ms", "-1"}, "--trace-slow-ms must not be negative"},
           {{"--otlp-endpoint", "ftp://x"}, "--otlp-endpoint"},
           {{"--log-format", "xml"}, "--log-format must be"},
           {{"--tracing", "maybe"}, "--tracing must be"}}) {
    ServeConfig refused;
    const Status status = serve(args, refused);
    ASSERT_FALSE(status.ok()) << args[0];
    EXPECT_NE(status.error().message.find(named), std::string::npos) << status.error().message;
  }
}

TEST(TracingSetup, TheFlagWinsOverTheVariablesAndV1TracesIsAppended) {
  TracingConfig config;
  auto none = tracer_options(config, environment({}));
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->exporter);

  auto base = tracer_options(
      config, environment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318/"}}));
  ASSERT_TRUE(base) << base.error().message;
  ASSERT_TRUE(base->exporter);
  EXPECT_EQ(base->exporter->url.host, "collector");
  EXPECT_EQ(base->exporter->url.port, "4318");
  EXPECT_EQ(base->exporter->url.path, "/v1/traces");

  auto whole = tracer_options(
      config, environment({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"},
                           {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://tempo:4318/otlp/traces"},
                           {"OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20k"}}));
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->exporter->url.host, "tempo");
  EXPECT_EQ(whole->exporter->url.path, "/otlp/traces");
  ASSERT_EQ(whole->exporter->headers.size(), 1u);
  EXPECT_EQ(whole->exporter->headers[0].second, "Bearer k");

  EXPECT_EQ(whole->exporter->max_batch_spans, 2048u);  // the default queue's eighth

  config.otlp_endpoint = "http://127.0.0.1:9999";
  config.queue_spans = 100;
  auto flag = tracer_options(
      config, environment({{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://tempo:4318/x"},
                           {"OTEL_SERVICE_NAME", "desk-eu"}}));
  ASSERT_TRUE(flag);
  EXPECT_EQ(flag->exporter->url.host, "127.0.0.1");
  EXPECT_EQ(flag->exporter->url.path, "/v1/traces");
  EXPECT_EQ(flag->exporter->max_queue_spans, 100u);
  EXPECT_EQ(flag->exporter->max_batch_spans, 12u);  // an eighth of the queue
  EXPECT_EQ(flag->resource.text("service.name"), "desk-eu");
}

TEST(TracingSetup, AMalformedVariableIsRefusedByName) {
  TracingConfig config;
  for (const auto& [variable, value] : std::vector<std::pair<std::string, std::string>>{
           {"OTEL_RESOURCE_ATTRIBUTES", "novalue"},
           {"OTEL_EXPORTER_OTLP_ENDPOINT", "https://collector:4318"},
           {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "collector"}}) {
    auto refused = tracer_options(config, environment({{variable, value}}));
    ASSERT_FALSE(refused) << variable;
    EXPECT_NE(refused.error().message.find(variable), std::string::npos) << refused.error().message;
  }
}

std::string formatted(LogFormat format, const std::string& text) {
  spdlog::details::log_msg message("", spdlog::level::warn, text);
  spdlog::memory_buf_t out;
  make_log_formatter(format)->format(message, out);
  return std::string(out.data(), out.size());
}

TEST(LogFormat, BothFormatsNameTheCurrentRequestAndJsonMasksPersonalData) {
  obs::trace::Tracer tracer({}, nullptr);
  auto request = tracer.start("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "");
  request->set_request_id("order-42");
  request->set_tenant("acme");
  request->set_route("POST /v1/answer");

  // Outside a request: no ids.
  const std::string plain = formatted(LogFormat::kText, "started");
  EXPECT_EQ(plain.find("trace"), std::string::npos) << plain;
  const auto outside = boost::json::parse(formatted(LogFormat::kJson, "started")).as_object();
  EXPECT_FALSE(outside.contains("trace_id"));
  EXPECT_EQ(outside.at("level").as_string(), "warning");

  {
    const obs::trace::Scope scope(request.get(), {});
    const std::string text = formatted(LogFormat::kText, "slow store");
    EXPECT_NE(text.find("slow store [trace 4bf92f3577b34da6a3ce929d0e0e4736 request order-42]"),
              std::string::npos)
        << text;
    EXPECT_EQ(text.back(), '\n');

    const std::string line = formatted(LogFormat::kJson, "mail jane.doe@example.com now");
    EXPECT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1);  // one object per line
    const auto json = boost::json::parse(line).as_object();
    EXPECT_EQ(json.at("trace_id").as_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
    EXPECT_EQ(json.at("span_id").as_string(), request->root_id().hex());
    EXPECT_EQ(json.at("request_id").as_string(), "order-42");
    EXPECT_EQ(json.at("tenant").as_string(), "acme");
    EXPECT_EQ(json.at("route").as_string(), "POST /v1/answer");
    const std::string message(json.at("message").as_string());
    EXPECT_EQ(message.find("jane.doe@example.com"), std::string::npos) << message;
    EXPECT_NE(message.find("now"), std::string::npos);
    const std::string time(json.at("time").as_string());
    ASSERT_EQ(time.size(), 24u) << time;  // 2026-12-04T17:02:02.123Z
    EXPECT_EQ(time.back(), 'Z');
  }
  request->end_part();
}

TEST(LogFormat, TextLinesAreMaskedAsJsonLinesAre) {
  const std::string said = "mail jane.doe@example.com or call +86 13800138000 now";
  const std::string text = formatted(LogFormat::kText, said);
  const std::string json(
      boost::json::parse(formatted(LogFormat::kJson, said)).at("message").as_string());
  for (const std::string& line : {text, json}) {
    EXPECT_EQ(line.find("jane.doe@example.com"), std::string::npos) << line;
    EXPECT_EQ(line.find("13800138000"), std::string::npos) << line;
    EXPECT_NE(line.find("now"), std::string::npos) << line;
  }
  EXPECT_NE(text.find(json), std::string::npos) << text << "\n" << json;  // the same masking
}

TEST(LogFormat, TheSlowRequestLineIsMaskedWithoutHarmToItsFigures) {
  obs::trace::Tracer tracer({}, nullptr);
  auto request = tracer.start("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "");
  obs::trace::KeptTrace kept;
  kept.trace_id = request->trace_id();
  kept.root_id = request->root_id();
  kept.name = "POST /v1/answer";
  kept.latency_ms = kept.duration_ms = 3204;
  kept.status_code = 200;
  obs::trace::SpanRecord stage = request->begin_span("retrieval");
  stage.end_ns = stage.start_ns + 12'000'000;
  kept.spans.push_back(stage);
  obs::trace::SpanRecord odd = request->begin_span("note jane.doe@example.com");
  odd.end_ns = odd.start_ns + 1'000'000;
  kept.spans.push_back(odd);
  const std::string line = obs::trace::slow_request_line(kept, 1000);
  for (LogFormat format : {LogFormat::kText, LogFormat::kJson}) {
    const std::string logged = formatted(format, line);
    EXPECT_EQ(logged.find("jane.doe@example.com"), std::string::npos) << logged;
    for (const char* kept_as_is : {"3204 ms", "over 1000 ms", "status 200", "retrieval 12.0 ms",
                                   "trace 4bf92f3577b34da6a3ce929d0e0e4736"})
      EXPECT_NE(logged.find(kept_as_is), std::string::npos) << kept_as_is << " in " << logged;
  }
  request->end_part();
}

}  // namespace
}  // namespace supportd::app
