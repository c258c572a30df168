// The response head written by hand (http/response_head): what Beast's own parser reads back
// from it (status, fields, framing), fields that would split the head left out, and the
// framing of bodiless statuses and streams.
#include "http/response_head.h"

#include <gtest/gtest.h>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

namespace supportd::http {
namespace {

namespace bhttp = boost::beast::http;

// Parses `head` followed by `body` as a client would; fails the test on a parse error.
bhttp::response<bhttp::string_body> parse(const std::string& head, const std::string& body = "") {
  bhttp::response_parser<bhttp::string_body> parser;
  parser.eager(true);
  const std::string wire = head + body;
  boost::system::error_code ec;
  const std::size_t used = parser.put(boost::asio::buffer(wire), ec);
  EXPECT_FALSE(ec) << ec.message() << " in:\n" << wire;
  EXPECT_EQ(used, wire.size());
  EXPECT_TRUE(parser.is_done());
  return parser.release();
}

TEST(ResponseHead, AWholeAnswerReadsBackWithItsStatusFieldsAndLength) {
  const Headers fields = {{"X-Request-Id", "abc"}, {"traceparent", "00-1-2-01"}};
  const Headers more = {{"Access-Control-Allow-Origin", "*"}};
  const std::string head = format_response_head({.status = 404,
                                                 .content_type = "application/json",
                                                 .fields = &fields,
                                                 .more = &more,
                                                 .content_length = 7,
                                                 .keep_alive = true});
  EXPECT_EQ(head.rfind("HTTP/1.1 404 Not Found\r\n", 0), 0u);
  EXPECT_TRUE(head.ends_with("\r\n\r\n"));
  const auto response = parse(head, "{\"a\":1}");
  EXPECT_EQ(response.result_int(), 404);
  EXPECT_EQ(response.body(), "{\"a\":1}");
  EXPECT_EQ(response[bhttp::field::content_type], "application/json");
  EXPECT_EQ(response[bhttp::field::server], "supportd");
  EXPECT_EQ(response["X-Request-Id"], "abc");
  EXPECT_EQ(response["traceparent"], "00-1-2-01");
  EXPECT_EQ(response["Access-Control-Allow-Origin"], "*");
  EXPECT_EQ(response[bhttp::field::content_length], "7");
  EXPECT_TRUE(response.keep_alive());
}

TEST(ResponseHead, AnAnswerThatEndsTheConnectionSaysSo) {
  const auto response =
      parse(format_response_head({.status = 503, .content_length = 0, .keep_alive = false}));
  EXPECT_EQ(response.result_int(), 503);
  EXPECT_EQ(response[bhttp::field::connection], "close");
  EXPECT_FALSE(response.keep_alive());
  EXPECT_EQ(response.count(bhttp::field::content_type), 0u);  // none given: none sent
}

TEST(ResponseHead, StatusesWithoutABodyCarryNoLength) {
  for (int status : {101, 204, 304}) {
    const std::string head = format_response_head({.status = status, .content_length = 0});
    EXPECT_EQ(head.find("Content-Length"), std::string::npos) << status;
  }
  EXPECT_NE(format_response_head({.status = 200, .content_length = 0}).find("Content-Length: 0"),
            std::string::npos);
}

TEST(ResponseHead, AStreamIsChunkedAndNeitherCachedNorBuffered) {
  const std::string head = format_response_head(
      {.status = 200, .content_type = "text/event-stream", .content_length = std::nullopt});
  bhttp::response_parser<bhttp::empty_body> parser;
  boost::system::error_code ec;
  parser.put(boost::asio::buffer(head), ec);
  ASSERT_FALSE(ec) << ec.message();
  ASSERT_TRUE(parser.is_header_done());
  EXPECT_TRUE(parser.chunked());
  const auto& response = parser.get();
  EXPECT_EQ(response[bhttp::field::cache_control], "no-cache");
  EXPECT_EQ(response["X-Accel-Buffering"], "no");
  EXPECT_EQ(response.count(bhttp::field::content_length), 0u);
}

TEST(ResponseHead, AFieldThatWouldSplitTheHeadIsLeftOut) {
  const Headers fields = {{"X-Good", "  kept, trimmed\t"},
                          {"X-Injected", "a\r\nSet-Cookie: stolen=1"},
                          {"X-Line", "a\nb"},
                          {"X-Nul", std::string("a\0b", 3)},
                          {"Bad Name", "x"},
                          {"", "x"},
                          {"Bad:Name", "x"}};
  const std::string head =
      format_response_head({.status = 200, .fields = &fields, .content_length = 0});
  const auto response = parse(head);
  EXPECT_EQ(response["X-Good"], "kept, trimmed");
  EXPECT_EQ(response.count("Set-Cookie"), 0u);
  EXPECT_EQ(response.count("X-Injected"), 0u);
  EXPECT_EQ(response.count("X-Line"), 0u);
  EXPECT_EQ(response.count("X-Nul"), 0u);
  EXPECT_EQ(head.find("Bad"), std::string::npos);
  EXPECT_TRUE(sendable_field("traceparent", "00-ab-cd-01"));
  EXPECT_FALSE(sendable_field("x y", "v"));
  EXPECT_FALSE(sendable_field("x", "a\rb"));
}

}  // namespace
}  // namespace supportd::http
