// The reader of protoc's printout: what it gives back is what protoc printed, so that the span
// checks of the API's tracing tests stand on it.
#include "otlp_text.h"

#include <gtest/gtest.h>

#include "obs/trace/otlp_encoder.h"
#include "otlp_decode.h"

namespace supportd::testing {
namespace {

TEST(OtlpText, ReadsNestedMessagesRepeatedFieldsAndEscapes) {
  std::string error;
  auto parsed = parse_text_format(R"(a: 1
b {
  c: "x\"y\\z\n\001\377"
  d: ENUM_NAME
}
b {
  c: ""
}
)",
                                  &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->scalar("a"), "1");
  const auto bs = parsed->all("b");
  ASSERT_EQ(bs.size(), 2u);
  EXPECT_EQ(bs[0]->scalar("c"), std::string("x\"y\\z\n\001\377"));
  EXPECT_EQ(bs[0]->scalar("d"), "ENUM_NAME");
  EXPECT_EQ(bs[1]->scalar("c"), "");
  EXPECT_EQ(parsed->scalar("missing"), "");
}

TEST(OtlpText, RefusesWhatIsNotTextFormat) {
  std::string error;
  EXPECT_FALSE(parse_text_format("a {\n b: 1\n", &error));
  EXPECT_NE(error.find("end"), std::string::npos) << error;
  EXPECT_FALSE(parse_text_format("a: \"open", &error));
  EXPECT_FALSE(parse_text_format("}", &error));
}

TEST(OtlpText, GivesBackTheSpansProtocDecoded) {
  if (auto why = otlp_decoding_unavailable(); !why.empty()) GTEST_SKIP() << why;
  using namespace obs::trace;
  ExportedTrace trace;
  trace.trace_id = *TraceId::from_hex("0af7651916cd43dd8448eb211c80319c");
  trace.root_id = *SpanId::from_hex("00f067aa0ba902b7");
  SpanRecord root;
  root.span_id = trace.root_id;
  root.parent_id = *SpanId::from_hex("b7ad6b7169203331");
  root.name = "GET /x";
  root.kind = SpanKind::kServer;
  root.start_ns = 1700000000000000000;
  root.end_ns = 1700000000250000000;
  root.set("http.response.status_code", 503);
  root.set("list", std::vector<std::string>{"a", "b"});
  root.events.push_back({1700000000000000001, "cancelled", {}});
  root.fail("503", "unavailable");
  trace.spans = {root};
  std::string error;
  auto text = decode_export_request(encode_export_request({}, {"supportd", "0"}, {trace}), &error);
  ASSERT_TRUE(text) << error;
  auto parsed = parse_text_format(*text, &error);
  ASSERT_TRUE(parsed) << error;
  const auto spans = decoded_spans(*parsed);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].trace_id, "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(spans[0].span_id, "00f067aa0ba902b7");
  EXPECT_EQ(spans[0].parent_span_id, "b7ad6b7169203331");
  EXPECT_EQ(spans[0].name, "GET /x");
  EXPECT_EQ(spans[0].kind, "SPAN_KIND_SERVER");
  EXPECT_EQ(spans[0].status_code, "STATUS_CODE_ERROR");
  EXPECT_EQ(spans[0].attributes.at("http.response.status_code"), "503");
  EXPECT_EQ(spans[0].attributes.at("list"), "a,b");
  EXPECT_EQ(spans[0].attributes.at("error.type"), "503");
  EXPECT_EQ(spans[0].events, std::vector<std::string>{"cancelled"});
  EXPECT_EQ(spans[0].end_ns - spans[0].start_ns, 250000000);
}

}  // namespace
}  // namespace supportd::testing
