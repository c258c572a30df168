// W3C Trace Context: traceparent and tracestate as the Recommendation's grammar and its test
// suite (w3c/trace-context test/test.py) say they are read.
#include "obs/trace/trace_context.h"

#include <gtest/gtest.h>

#include <string>

namespace supportd::obs::trace {
namespace {

constexpr const char* kValid = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

TEST(Traceparent, ReadsAValidHeader) {
  auto context = parse_traceparent(kValid);
  ASSERT_TRUE(context);
  EXPECT_EQ(context->trace_id.hex(), "0af7651916cd43dd8448eb211c80319c");
  EXPECT_EQ(context->span_id.hex(), "b7ad6b7169203331");
  EXPECT_EQ(context->flags, 0x01);
  EXPECT_TRUE(context->sampled());
  auto unsampled = parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00");
  ASSERT_TRUE(unsampled);
  EXPECT_FALSE(unsampled->sampled());
}

TEST(Traceparent, AcceptsSpacesAndTabsAround) {
  EXPECT_TRUE(parse_traceparent(std::string(" \t") + kValid + " "));
}

TEST(Traceparent, RefusesWhatTheGrammarRefuses) {
  const char* bad[] = {
      "",
      "00",
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0",          // short flags
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-",        // v00 with a tail
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x",        // v00 too long
      "00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01",         // upper case
      "00-00000000000000000000000000000000-b7ad6b7169203331-01",         // zero trace id
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",         // zero span id
      "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",         // version ff
      "0g-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",         // not hex
      "00_0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",         // wrong separator
      "00-0af7651916cd43dd8448eb211c80319-cb7ad6b7169203331-01",         // separator moved
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0g",         // flags not hex
      "01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01x",        // later version, no '-'
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333\xc3\xa9-01",  // UTF-8 inside
  };
  for (const char* header : bad)
    EXPECT_FALSE(parse_traceparent(header)) << header;
}

TEST(Traceparent, ReadsALaterVersionByItsFirstFields) {
  auto longer =
      parse_traceparent("cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-03-what-follows");
  ASSERT_TRUE(longer);
  EXPECT_EQ(longer->span_id.hex(), "b7ad6b7169203331");
  EXPECT_EQ(longer->flags, 0x01);  // only "sampled" of flags it does not know
  EXPECT_TRUE(parse_traceparent("cc-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"));
}

TEST(Traceparent, FormatsWhatItReads) {
  auto context = parse_traceparent(kValid);
  ASSERT_TRUE(context);
  EXPECT_EQ(format_traceparent(context->trace_id, context->span_id, context->flags), kValid);
  EXPECT_EQ(format_traceparent(context->trace_id, context->span_id, 0),
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00");
}

TEST(Tracestate, KeepsAValidList) {
  EXPECT_EQ(parse_tracestate("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"),
            "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE");
  // Empty members and spaces around commas are allowed, and dropped.
  EXPECT_EQ(parse_tracestate(" rojo=1 ,, \tcongo=2\t,"), "rojo=1,congo=2");
  // Multi-tenant keys, and values with inner spaces.
  EXPECT_EQ(parse_tracestate("fw529a3039@dt=d7ad6b7169203331,a_b-c*d/e=x y"),
            "fw529a3039@dt=d7ad6b7169203331,a_b-c*d/e=x y");
}

TEST(Tracestate, DropsAListThatBreaksARule) {
  const char* bad[] = {
      "Rojo=1",               // upper-case key
      "1rojo=1",              // simple key must start with a letter
      "rojo",                 // no '='
      "rojo=1,rojo=2",        // a key twice
      "rojo=a=b",             // '=' in the value
      "@dt=1",                // empty tenant
      "t@=1",                 // empty system
      "t@Dt=1",               // system must start with a letter
      "t@abcdefghijklmno=1",  // system longer than 14
      "rojo=\x7f",            // not printable
  };
  for (const char* header : bad)
    EXPECT_EQ(parse_tracestate(header), "") << header;
  auto members = [](int count) {
    std::string list;
    for (int i = 0; i < count; ++i)
      list.append("k").append(std::to_string(i)).append("=v,");
    return list;
  };
  EXPECT_EQ(parse_tracestate(members(33)), "");  // over 32 members
  EXPECT_NE(parse_tracestate(members(32)), "");
}

TEST(Tracestate, ShrinksALongListFromItsLongMembersThenItsEnd) {
  const std::string x = "x=" + std::string(200, 'x');
  const std::string y = "y=" + std::string(255, 'y');
  const std::string z = "z=" + std::string(255, 'z');
  // 726 characters: members over 128 go, from the end, until it fits; the short ones stay.
  EXPECT_EQ(parse_tracestate("a=1," + x + "," + y + "," + z + ",c=3"),
            "a=1," + x + "," + y + ",c=3");
  // Only short members: they go from the end.
  std::string list, kept;
  for (int i = 0; i < 32; ++i) {
    std::string member = "key";
    member.append(std::to_string(10 + i)).append("=").append(14, 'v');
    if (i > 0) list.push_back(',');
    list.append(member);
    if (kept.size() + member.size() + 1 <= 512 + (kept.empty() ? 1 : 0)) {
      if (!kept.empty()) kept.push_back(',');
      kept.append(member);
    }
  }
  ASSERT_GT(list.size(), 512u);
  EXPECT_EQ(parse_tracestate(list), kept);
}

}  // namespace
}  // namespace supportd::obs::trace
