// The checks a request's head must pass before its body is read (http/request_framing): when
// the head has arrived, folded lines, and the framing rules Beast leaves to the server.
#include <gtest/gtest.h>

#include "http/request_framing.h"

namespace supportd::http {
namespace {

namespace bhttp = boost::beast::http;

TEST(HttpRequestFraming, AHeadHasArrivedAtItsEmptyLineOrAtABareLineFeed) {
  EXPECT_FALSE(head_arrived(""));
  EXPECT_FALSE(head_arrived("GET / HTTP/1.1\r\nHost: x\r\n"));
  EXPECT_FALSE(head_arrived("GET / HTTP/1.1\r\nHost: x\r\n\r"));
  EXPECT_TRUE(head_arrived("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_TRUE(head_arrived("GET / HTTP/1.1\r\nHost: x\r\n\r\nbody"));
  EXPECT_TRUE(head_arrived("GET / HTTP/1.1\nHost"));  // malformed: Beast can say so now
  // Resuming where an earlier call stopped still sees an empty line split across reads.
  const std::string whole = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  EXPECT_TRUE(head_arrived(whole, whole.size() - 1));
  EXPECT_TRUE(head_arrived(whole, whole.size() - 3));
}

TEST(HttpRequestFraming, FoldedLinesAreRefused) {
  EXPECT_FALSE(check_folding("GET / HTTP/1.1\r\nHost: x\r\nX-A: a b\r\n\r\n"));
  for (const std::string head : {"GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n",
                                 "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n\tb\r\n\r\n",
                                 "GET / HTTP/1.1\r\n Host: x\r\n\r\n"}) {
    const auto refusal = check_folding(head);
    ASSERT_TRUE(refusal) << head;
    EXPECT_EQ(refusal->status, 400);
    EXPECT_NE(refusal->message.find("obs-fold"), std::string::npos);
  }
  // A body that begins with white space is no folded line.
  EXPECT_FALSE(check_folding("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n  x"));
  EXPECT_FALSE(check_folding("POST / HTTP/1.1\r\nHost: x\r\n\r\n\r\n x"));
}

bhttp::request<bhttp::string_body> request(
    int version, std::vector<std::pair<std::string, std::string>> fields) {
  bhttp::request<bhttp::string_body> head{bhttp::verb::post, "/", version};
  for (const auto& [name, value] : fields)
    head.insert(name, value);
  return head;
}

TEST(HttpRequestFraming, TheBodysEndMustBeKnownAndTheHostSingle) {
  EXPECT_FALSE(check_framing(request(11, {{"Host", "x"}}), false));
  EXPECT_FALSE(check_framing(request(11, {{"Host", "x"}, {"Transfer-Encoding", "chunked"}}), true));
  EXPECT_FALSE(check_framing(request(10, {}), false));  // HTTP/1.0 needs no Host

  const auto refused = [](const bhttp::request<bhttp::string_body>& head, bool chunked) {
    const auto refusal = check_framing(head, chunked);
    return refusal ? refusal->status : 0;
  };
  EXPECT_EQ(refused(request(11, {}), false), 400);
  EXPECT_EQ(refused(request(11, {{"Host", "x"}, {"Host", "y"}}), false), 400);
  EXPECT_EQ(refused(request(11, {{"Host", "x"}, {"Transfer-Encoding", "gzip"}}), false), 400);
  EXPECT_EQ(refused(request(10, {{"Transfer-Encoding", "chunked"}}), true), 400);
  EXPECT_EQ(refused(request(11, {{"Host", "x"}, {"Transfer-Encoding", "gzip, chunked"}}), true),
            501);
  EXPECT_EQ(refused(request(11, {{"Host", "x"},
                                 {"Transfer-Encoding", "gzip"},
                                 {"Transfer-Encoding", "chunked"}}),
                    true),
            501);
}

}  // namespace
}  // namespace supportd::http
