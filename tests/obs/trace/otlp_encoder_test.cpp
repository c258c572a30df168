// The OTLP encoder, decoded by protoc with the official definitions: every field supportd
// writes lands where opentelemetry-proto says it belongs.
#include "obs/trace/otlp_encoder.h"

#include <gtest/gtest.h>

#include "obs/trace/protobuf_writer.h"
#include "otlp_decode.h"

namespace supportd::obs::trace {
namespace {

ExportedTrace sample_trace() {
  ExportedTrace trace;
  trace.trace_id = *TraceId::from_hex("0af7651916cd43dd8448eb211c80319c");
  trace.root_id = *SpanId::from_hex("00f067aa0ba902b7");
  trace.remote_parent = true;
  trace.flags = 1;
  trace.tracestate = "rojo=00f067aa0ba902b7";
  SpanRecord root;
  root.span_id = trace.root_id;
  root.parent_id = *SpanId::from_hex("b7ad6b7169203331");
  root.name = "POST /v1/chat/completions";
  root.kind = SpanKind::kServer;
  root.start_ns = 1700000000000000000;
  root.end_ns = 1700000000250000000;
  root.set("http.request.method", "POST");
  root.set("http.response.status_code", 200);
  root.set("gen_ai.latency.e2e", 0.25);
  root.set("supportd.streamed", true);
  root.set("gen_ai.response.finish_reasons", std::vector<std::string>{"stop", "length"});
  SpanRecord child;
  child.span_id = *SpanId::from_hex("1111111111111111");
  child.parent_id = trace.root_id;
  child.name = "queue";
  child.start_ns = 1700000000000000001;
  child.end_ns = 1700000000100000000;
  child.set("gen_ai.usage.input_tokens", std::int64_t{-3});
  child.events.push_back(
      {1700000000050000000, "preempted", {{"reason", AttributeValue::of(std::string("kv"))}}});
  child.link = SpanLink{*TraceId::from_hex("22222222222222222222222222222222"),
                        *SpanId::from_hex("3333333333333333")};
  child.fail("deadline_exceeded", "too late");
  trace.spans = {root, child};
  return trace;
}

TEST(OtlpEncoder, DecodesWithTheOfficialDefinitions) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  Resource resource;
  resource.attributes.emplace_back("service.name", AttributeValue::of(std::string("supportd")));
  resource.attributes.emplace_back("process.pid", AttributeValue::of(std::int64_t{42}));
  std::string error;
  auto text = testing::decode_export_request(
      encode_export_request(resource, {"supportd", "0.1.0"}, {sample_trace()}), &error);
  ASSERT_TRUE(text) << error;
  EXPECT_EQ(*text, R"(resource_spans {
  resource {
    attributes {
      key: "service.name"
      value {
        string_value: "supportd"
      }
    }
    attributes {
      key: "process.pid"
      value {
        int_value: 42
      }
    }
  }
  scope_spans {
    scope {
      name: "supportd"
      version: "0.1.0"
    }
    spans {
      trace_id: "\n\367e\031\026\315C\335\204H\353!\034\2001\234"
      span_id: "\000\360g\252\013\251\002\267"
      trace_state: "rojo=00f067aa0ba902b7"
      parent_span_id: "\267\255kqi 31"
      name: "POST /v1/chat/completions"
      kind: SPAN_KIND_SERVER
      start_time_unix_nano: 1700000000000000000
      end_time_unix_nano: 1700000000250000000
      attributes {
        key: "http.request.method"
        value {
          string_value: "POST"
        }
      }
      attributes {
        key: "http.response.status_code"
        value {
          int_value: 200
        }
      }
      attributes {
        key: "gen_ai.latency.e2e"
        value {
          double_value: 0.25
        }
      }
      attributes {
        key: "supportd.streamed"
        value {
          bool_value: true
        }
      }
      attributes {
        key: "gen_ai.response.finish_reasons"
        value {
          array_value {
            values {
              string_value: "stop"
            }
            values {
              string_value: "length"
            }
          }
        }
      }
      flags: 769
    }
    spans {
      trace_id: "\n\367e\031\026\315C\335\204H\353!\034\2001\234"
      span_id: "\021\021\021\021\021\021\021\021"
      trace_state: "rojo=00f067aa0ba902b7"
      parent_span_id: "\000\360g\252\013\251\002\267"
      name: "queue"
      kind: SPAN_KIND_INTERNAL
      start_time_unix_nano: 1700000000000000001
      end_time_unix_nano: 1700000000100000000
      attributes {
        key: "gen_ai.usage.input_tokens"
        value {
          int_value: -3
        }
      }
      attributes {
        key: "error.type"
        value {
          string_value: "deadline_exceeded"
        }
      }
      events {
        time_unix_nano: 1700000000050000000
        name: "preempted"
        attributes {
          key: "reason"
          value {
            string_value: "kv"
          }
        }
      }
      links {
        trace_id: "\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\""
        span_id: "33333333"
      }
      status {
        message: "too late"
        code: STATUS_CODE_ERROR
      }
      flags: 257
    }
  }
}
)");
}

TEST(ProtobufWriter, WritesCanonicalLengthsForLongNestedMessages) {
  ProtobufWriter w;
  const std::size_t outer = w.begin(1);
  w.bytes(2, std::string(300, 'x'));  // a 303-byte body: a two-byte length
  w.end(outer);
  const std::string_view data = w.data();
  ASSERT_EQ(data.size(), 1u + 2u + 303u);
  EXPECT_EQ(static_cast<unsigned char>(data[0]), 0x0a);  // field 1, length-delimited
  EXPECT_EQ(static_cast<unsigned char>(data[1]), 0xaf);  // 303 = 0b10_0101111
  EXPECT_EQ(static_cast<unsigned char>(data[2]), 0x02);
  EXPECT_EQ(static_cast<unsigned char>(data[3]), 0x12);  // field 2
  EXPECT_EQ(static_cast<unsigned char>(data[4]), 0xac);  // 300
  EXPECT_EQ(static_cast<unsigned char>(data[5]), 0x02);
}

TEST(OtlpEncoder, ABigBatchDecodesWhole) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  std::vector<ExportedTrace> traces(50, sample_trace());
  std::string error;
  auto text = testing::decode_export_request(
      encode_export_request(Resource{}, {"supportd", ""}, traces), &error);
  ASSERT_TRUE(text) << error;
  std::size_t spans = 0;
  for (std::size_t at = text->find("  spans {"); at != std::string::npos;
       at = text->find("  spans {", at + 1))
    ++spans;
  EXPECT_EQ(spans, 100u);
}

// The exporter's way: spans encoded trace by trace after room for the head, the request finished
// in place, decoded whole by protoc with the official definitions: for a head whose lengths take
// one byte and for one whose lengths take three (a big resource, a big batch).
TEST(OtlpEncoder, ARequestFinishedInPlaceDecodesWhole) {
  if (auto why = testing::otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  for (const std::size_t traces : {1u, 400u}) {
    Resource resource;
    resource.attributes.emplace_back("service.name", AttributeValue::of(std::string("supportd")));
    resource.attributes.emplace_back("deployment.environment",
                                     AttributeValue::of(std::string(traces * 2, 'x')));
    const InstrumentationScope scope{"supportd", "1.2.3"};
    const ExportRequestHead head(resource, scope);
    std::string batch(head.room(), '\0');
    for (std::size_t i = 0; i < traces; ++i) {
      ProtobufWriter one;
      encode_spans(sample_trace(), one);
      batch += one.data();
    }
    const std::string_view request = head.finish(batch);
    EXPECT_EQ(request.data() + request.size(), batch.data() + batch.size());
    std::string error;
    auto text = testing::decode_export_request(std::string(request), &error);
    ASSERT_TRUE(text) << error;
    std::size_t spans = 0;
    for (std::size_t at = text->find("  spans {"); at != std::string::npos;
         at = text->find("  spans {", at + 1))
      ++spans;
    EXPECT_EQ(spans, 2 * traces);
    EXPECT_NE(text->find("string_value: \"" + std::string(traces * 2, 'x') + "\""),
              std::string::npos);
    EXPECT_NE(text->find("version: \"1.2.3\""), std::string::npos);
  }
}

}  // namespace
}  // namespace supportd::obs::trace
