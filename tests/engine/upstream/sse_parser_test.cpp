// The upstream engine's SSE parser: events split across arbitrary chunks come out whole; a line
// or an event past the size limit overflows the parser instead of growing without end.
#include "engine/upstream/sse_parser.h"

#include <gtest/gtest.h>

namespace supportd::engine::upstream {
namespace {

TEST(SseParser, SplitsEventsAcrossArbitraryChunks) {
  const std::string stream =
      "data: {\"a\":1}\n\n: comment\r\ndata: x\r\ndata: y\r\n\r\ndata: [DONE]\n\n";
  for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
    SseParser parser;
    auto events = parser.feed(stream.substr(0, cut));
    auto more = parser.feed(stream.substr(cut));
    events.insert(events.end(), more.begin(), more.end());
    ASSERT_EQ(events.size(), 3u) << "cut " << cut;
    EXPECT_EQ(events[0], "{\"a\":1}");
    EXPECT_EQ(events[1], "x\ny");
    EXPECT_EQ(events[2], "[DONE]");
  }
}

TEST(SseParser, ALineWithoutEndOverflowsAtTheLimit) {
  SseParser parser(64);
  EXPECT_TRUE(parser.feed("data: " + std::string(40, 'a')).empty());
  EXPECT_FALSE(parser.overflowed());
  EXPECT_TRUE(parser.feed(std::string(40, 'b')).empty());
  EXPECT_TRUE(parser.overflowed());
  // Nothing more comes out of an overflowed parser, even a well-formed event.
  EXPECT_TRUE(parser.feed("\n\ndata: x\n\n").empty());
}

TEST(SseParser, AnEventOfManyShortLinesOverflowsAtTheLimit) {
  SseParser parser(64);
  std::string lines;
  for (int i = 0; i < 20; ++i)
    lines += "data: 0123456789\n";
  EXPECT_TRUE(parser.feed(lines).empty());
  EXPECT_TRUE(parser.overflowed());
}

TEST(SseParser, EventsUpToTheLimitPass) {
  SseParser parser(64);
  const std::string data(50, 'z');  // a line of 56 bytes, data of 50
  const auto events = parser.feed("data: " + data + "\n\n");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0], data);
  EXPECT_FALSE(parser.overflowed());
}

}  // namespace
}  // namespace supportd::engine::upstream
