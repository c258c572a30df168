// The upstream engine's SSE parser: events split across arbitrary chunks come out whole.
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

}  // namespace
}  // namespace supportd::engine::upstream
