// Other sites' pages calling the desk over real HTTP (the widget embedded on a shop's site),
// with the origins restricted to one shop: its preflights and calls are answered with CORS
// headers, whole, deferred and streamed alike; any other site gets a JSON 403; the agents'
// endpoints and socket refuse every other site's pages, while tools without an Origin pass.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "desk_fixture.h"

namespace supportd {
namespace {

namespace json = boost::json;
using testing::DeskServer;
using testing::http_request;

const std::string kShop = "https://shop.example.com";
const std::string kOther = "https://elsewhere.example.net";

class DeskCrossOrigin : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new DeskServer({.cross_origin = *http::CrossOrigin::parse(kShop)});
  }
  static void TearDownTestSuite() { delete server_; }
  static DeskServer& server() { return *server_; }

  static testing::HttpResult call(const std::string& method, const std::string& target,
                                  const std::string& origin, const std::string& body = {}) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!origin.empty()) headers.emplace_back("Origin", origin);
    if (!body.empty()) headers.emplace_back("Content-Type", "application/json");
    return http_request(server().port(), method, target, body, headers);
  }

  static std::string session_for(const std::string& origin) {
    const auto r = call("POST", "/v1/sessions", origin, R"({"user":"carol"})");
    EXPECT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(r.header("access-control-allow-origin"), origin);
    return std::string(json::parse(r.body).at("session").as_string());
  }

  static DeskServer* server_;
};
DeskServer* DeskCrossOrigin::server_ = nullptr;

TEST_F(DeskCrossOrigin, TheListedSitesPreflightsAreAnswered) {
  const auto preflight =
      http_request(server().port(), "OPTIONS", "/v1/sessions/abc/messages", {},
                   {{"Origin", kShop},
                    {"Access-Control-Request-Method", "POST"},
                    {"Access-Control-Request-Headers", "content-type,authorization"}});
  EXPECT_EQ(preflight.status, 204) << preflight.body;
  EXPECT_EQ(preflight.header("access-control-allow-origin"), kShop);
  EXPECT_EQ(preflight.header("access-control-allow-methods"), "POST, GET");
  EXPECT_NE(preflight.header("access-control-allow-headers").find("Authorization"),
            std::string::npos);
  EXPECT_EQ(preflight.header("vary"), "Origin");

  const auto refused =
      http_request(server().port(), "OPTIONS", "/v1/sessions", {},
                   {{"Origin", kOther}, {"Access-Control-Request-Method", "POST"}});
  EXPECT_EQ(refused.status, 403);
  EXPECT_TRUE(refused.header("access-control-allow-origin").empty());
}

TEST_F(DeskCrossOrigin, WholeDeferredAndStreamedAnswersCarryTheHeaders) {
  const std::string session = session_for(kShop);
  const std::string messages = "/v1/sessions/" + session + "/messages";
  const auto whole = call("POST", messages, kShop, R"({"text":"How much is shipping?"})");
  EXPECT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(whole.header("access-control-allow-origin"), kShop);
  EXPECT_NE(whole.header("access-control-expose-headers").find("Retry-After"), std::string::npos);

  const auto streamed =
      call("POST", messages, kShop, R"({"text":"How much is shipping?","stream":true})");
  EXPECT_EQ(streamed.status, 200);
  EXPECT_EQ(streamed.header("content-type").substr(0, 17), "text/event-stream");
  EXPECT_EQ(streamed.header("access-control-allow-origin"), kShop);
  EXPECT_EQ(testing::sse_data(streamed.body).back(), "[DONE]");

  const auto history = call("GET", messages, kShop);
  EXPECT_EQ(history.status, 200);
  EXPECT_EQ(history.header("access-control-allow-origin"), kShop);
}

TEST_F(DeskCrossOrigin, OtherSitesGetAJsonRefusalAndNothingHappens) {
  const auto refused = call("POST", "/v1/sessions", kOther, R"({"user":"mallory"})");
  EXPECT_EQ(refused.status, 403);
  const json::value body = json::parse(refused.body);
  EXPECT_EQ(body.at("error").at("code"), json::value("origin_not_allowed"));
  EXPECT_NE(std::string(body.at("error").at("message").as_string()).find(kOther),
            std::string::npos);
  EXPECT_TRUE(refused.header("access-control-allow-origin").empty());
  // Tools without an Origin and the server's own pages are not affected.
  EXPECT_EQ(call("POST", "/v1/sessions", "", R"({"user":"tool"})").status, 201);
  const std::string own = "http://127.0.0.1:" + std::to_string(server().port());
  EXPECT_EQ(call("POST", "/v1/sessions", own, R"({"user":"demo"})").status, 201);
}

TEST_F(DeskCrossOrigin, ErrorsAnsweredBeforeAnyRouteAreReadableByTheListedSite) {
  // No such path, a method the path does not take, a body over the limit: without the CORS
  // headers the widget sees a network error instead of the JSON saying what went wrong.
  const auto missing = call("GET", "/v1/no-such-thing", kShop);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.header("access-control-allow-origin"), kShop);
  const auto wrong_method = call("DELETE", "/v1/sessions", kShop);
  EXPECT_EQ(wrong_method.status, 405);
  EXPECT_EQ(wrong_method.header("access-control-allow-origin"), kShop);
  const std::string huge(1100 * 1024, ' ');  // over the 1 MiB default body limit
  const auto too_large = call("POST", "/v1/sessions", kShop, huge);
  EXPECT_EQ(too_large.status, 413);
  EXPECT_EQ(too_large.header("access-control-allow-origin"), kShop);
  EXPECT_NE(too_large.body.find("request_too_large"), std::string::npos);
  // Another site learns nothing more than before.
  EXPECT_EQ(call("GET", "/v1/no-such-thing", kOther).header("access-control-allow-origin"), "");
  EXPECT_EQ(call("POST", "/v1/sessions", kOther, huge).header("access-control-allow-origin"), "");
}

TEST_F(DeskCrossOrigin, TheAgentsEndpointsAndSocketAreForTheServersOwnPages) {
  // The status of a WebSocket handshake to the agents' socket from a page of `origin`.
  auto socket_from = [&](const std::string& origin) {
    testing::Connection c(server().port());
    c.send("GET /v1/agent/ws HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server().port()) +
           "\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nOrigin: " +
           origin + "\r\n\r\n");
    std::string head;
    for (int i = 0; i < 100 && head.find("\r\n\r\n") == std::string::npos; ++i)
      head += c.read_some(std::chrono::milliseconds(50));
    return head.size() > 12 ? std::atoi(head.c_str() + 9) : 0;
  };
  for (const std::string& origin : {kOther, std::string("null")}) {
    EXPECT_EQ(socket_from(origin), 403) << origin;
    const auto refused = call("GET", "/v1/agent/conversations", origin);
    EXPECT_EQ(refused.status, 403) << origin;
    EXPECT_NE(refused.body.find("origin_not_allowed"), std::string::npos);
  }
  // The shop is listed by name, so it may (a console behind a proxy that rewrites Host).
  EXPECT_EQ(socket_from(kShop), 101);
  EXPECT_EQ(socket_from("http://127.0.0.1:" + std::to_string(server().port())), 101);
  EXPECT_EQ(call("GET", "/v1/agent/conversations", "").status, 200);
}

}  // namespace
}  // namespace supportd
