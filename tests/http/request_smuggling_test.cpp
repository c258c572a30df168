// Requests shaped for smuggling (a head a proxy and supportd could read as different requests)
// are refused with a JSON 400 and the connection closed, so that nothing sent after them is
// read as a request; and pipelined requests are answered in order, streams among them.
#include <gtest/gtest.h>

#include "hostile_server.h"

namespace supportd::testing {
namespace {

using std::chrono::seconds;

// What follows each refused request on its connection: a request that must never be answered.
const std::string kSmuggled = "GET /echo/smuggled HTTP/1.1\r\nHost: x\r\n\r\n";

struct Shape {
  const char* what;
  std::string request;
  int status = 400;
  const char* code = "bad_request";
};

std::vector<Shape> smuggling_shapes() {
  const std::string post = "POST /echo/first HTTP/1.1\r\nHost: x\r\n";
  const std::string chunked_body = "\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
  return {
      {"Content-Length then Transfer-Encoding",
       post + "Content-Length: 5\r\nTransfer-Encoding: chunked" + chunked_body},
      {"Transfer-Encoding then Content-Length",
       post + "Transfer-Encoding: chunked\r\nContent-Length: 5" + chunked_body},
      {"two Content-Lengths that differ",
       post + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"},
      {"a Content-Length list that differs", post + "Content-Length: 5, 6\r\n\r\nhello!"},
      {"a signed Content-Length", post + "Content-Length: +5\r\n\r\nhello"},
      {"a hexadecimal Content-Length", post + "Content-Length: 0x5\r\n\r\nhello"},
      {"a Content-Length past 64 bits",
       post + "Content-Length: 99999999999999999999999\r\n\r\nhello"},
      {"an empty Content-Length", post + "Content-Length: \r\n\r\n"},
      {"Transfer-Encoding gzip alone", post + "Transfer-Encoding: gzip\r\n\r\nhello"},
      {"Transfer-Encoding that does not end in chunked",
       post + "Transfer-Encoding: chunked, gzip" + chunked_body},
      {"chunked twice in one field", post + "Transfer-Encoding: chunked, chunked" + chunked_body},
      {"chunked twice in two fields",
       post + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked" + chunked_body},
      {"a coding that only contains chunked", post + "Transfer-Encoding: xchunked" + chunked_body},
      {"a vertical tab before chunked", post + "Transfer-Encoding: \vchunked" + chunked_body},
      {"a coding before chunked (501: cannot decode)",
       post + "Transfer-Encoding: gzip, chunked" + chunked_body, 501,
       "unsupported_transfer_encoding"},
      {"Transfer-Encoding in HTTP/1.0",
       "POST /echo/first HTTP/1.0\r\nHost: x\r\nTransfer-Encoding: chunked" + chunked_body},
      {"a folded line (obs-fold)", post + "X-Note: one\r\n two\r\nContent-Length: 0\r\n\r\n"},
      {"a field hidden by a leading space",
       "POST /echo/first HTTP/1.1\r\n Content-Length: 5\r\nHost: x\r\n\r\nhello"},
      {"a tab-folded Transfer-Encoding",
       post + "Transfer-Encoding: gzip\r\n\tchunked" + chunked_body},
      {"white space before the colon", post + "Content-Length : 5\r\n\r\nhello"},
      {"lines ended by a bare LF",
       "POST /echo/first HTTP/1.1\nHost: x\nContent-Length: 5\n\nhello"},
      {"a bare CR inside the head", post + "X-Note: a\rContent-Length: 5\r\n\r\nhello"},
      {"a NUL in a value", post + std::string("X-Note: a\0b\r\nContent-Length: 0\r\n\r\n", 34)},
      {"a chunk size in hexadecimal notation",
       post + "Transfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n"},
      {"a chunk size past 64 bits",
       post + "Transfer-Encoding: chunked\r\n\r\nfffffffffffffffffff\r\nhello\r\n0\r\n\r\n"},
      {"a chunk longer than its size",
       post + "Transfer-Encoding: chunked\r\n\r\n5\r\nhelloXX\r\n0\r\n\r\n"},
      {"no Host in HTTP/1.1", "GET /echo/first HTTP/1.1\r\n\r\n"},
      {"two Hosts", "GET /echo/first HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"},
  };
}

TEST(HttpSmuggling, AmbiguousRequestsAreRefusedAndTheConnectionClosed) {
  HostileServer server;
  for (const Shape& shape : smuggling_shapes()) {
    SCOPED_TRACE(shape.what);
    Connection client(server.port());
    ASSERT_TRUE(client.send(shape.request + kSmuggled));
    expect_json_error(client.read_response(), shape.status, shape.code);
    // Nothing more: the smuggled request is never answered, and the server closes.
    const std::string rest = client.read_some(seconds(30));  // all until the server closes
    EXPECT_EQ(rest.find("smuggled"), std::string::npos) << rest;
    EXPECT_TRUE(client.closed_by_peer(seconds(1)));
  }
  EXPECT_EQ(health(server.port()), 200);
}

// What RFC 9112 allows stays allowed: the same length twice, the coding name in capitals, a
// chunk extension, trailers.
TEST(HttpSmuggling, UnambiguousVariantsAreServed) {
  HostileServer server;
  const std::string post = "POST /echo/fine HTTP/1.1\r\nHost: x\r\n";
  for (const std::string& request : {
           post + "Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
           post + "Content-Length: 5, 5\r\n\r\nhello",
           post + "Transfer-Encoding: CHUNKED\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
           post + "Transfer-Encoding: chunked\r\n\r\n5;note=x\r\nhello\r\n0\r\n\r\n",
           post + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n",
           std::string("POST /echo/fine HTTP/1.0\r\nContent-Length: 5\r\n\r\nhello"),
       }) {
    SCOPED_TRACE(request);
    Connection client(server.port());
    ASSERT_TRUE(client.send(request));
    const HttpResult answer = client.read_response();
    EXPECT_EQ(answer.status, 200) << answer.body;
    EXPECT_EQ(answer.body, R"({"path":"/echo/fine","body_bytes":5})");
  }
}

// Requests sent together in one write, a stream among them, come back one by one in order.
TEST(HttpSmuggling, PipelinedRequestsAreAnsweredInOrder) {
  HostileServer server;
  Connection client(server.port());
  ASSERT_TRUE(
      client.send(head("GET", "/echo/1", "") + head("POST", "/echo/2", "Content-Length: 3\r\n") +
                  "abc" + head("POST", "/echo/3", "Transfer-Encoding: chunked\r\n") +
                  "2\r\nab\r\n0\r\n\r\n" + head("GET", "/stream?pieces=3&piece_bytes=10", "") +
                  head("GET", "/echo/5", "Connection: close\r\n")));
  EXPECT_EQ(client.read_response().body, R"({"path":"/echo/1","body_bytes":0})");
  EXPECT_EQ(client.read_response().body, R"({"path":"/echo/2","body_bytes":3})");
  EXPECT_EQ(client.read_response().body, R"({"path":"/echo/3","body_bytes":2})");
  const HttpResult stream = client.read_response();
  EXPECT_EQ(stream.header("content-type"), "text/event-stream");
  EXPECT_EQ(sse_data(stream.body),
            (std::vector<std::string>{"0 xxxxxxxxxx", "1 xxxxxxxxxx", "2 xxxxxxxxxx"}));
  EXPECT_EQ(client.read_response().body, R"({"path":"/echo/5","body_bytes":0})");
  EXPECT_TRUE(client.closed_by_peer(seconds(30)));
}

// A refused request in a pipeline: those before it are answered, none after it.
TEST(HttpSmuggling, APipelineStopsAtTheFirstRefusedRequest) {
  HostileServer server;
  Connection client(server.port());
  ASSERT_TRUE(client.send(head("GET", "/echo/1", "") +
                          head("POST", "/echo/2", "Content-Length: 1\r\nContent-Length: 2\r\n") +
                          "ab" + head("GET", "/echo/3", "")));
  EXPECT_EQ(client.read_response().body, R"({"path":"/echo/1","body_bytes":0})");
  expect_json_error(client.read_response(), 400, "bad_request");
  const std::string rest = client.read_some(seconds(30));  // all until the server closes
  EXPECT_EQ(rest.find("/echo/3"), std::string::npos) << rest;
  EXPECT_TRUE(client.closed_by_peer(seconds(1)));
}

}  // namespace
}  // namespace supportd::testing
