// The router: literal and captured segments, JSON errors for unknown paths and methods (valid JSON
// even for a path that is not UTF-8), HEAD served by the GET route, the matched route named for
// traces, query parameters decoded.
#include "http/router.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "core/utf8.h"

namespace supportd::http {
namespace {

Request request(std::string method, std::string path) {
  Request r;
  r.method = std::move(method);
  r.path = std::move(path);
  return r;
}

TEST(Router, MatchesLiteralAndCapturedSegments) {
  Router router;
  router.add("GET", "/v1/models", [](Request&) { return Response::text(200, "models"); });
  router.add("POST", "/v1/sessions/{id}/messages",
             [](Request& r) { return Response::text(200, std::string(r.param("id"))); });
  auto get = request("GET", "/v1/models");
  EXPECT_EQ(router.dispatch(get).body, "models");
  auto post = request("POST", "/v1/sessions/abc/messages");
  EXPECT_EQ(router.dispatch(post).body, "abc");
}

TEST(Router, AnswersUnknownPathsAndMethodsWithJsonErrors) {
  Router router;
  router.add("GET", "/health", [](Request&) { return Response::text(200, "ok"); });
  auto missing = request("GET", "/nope");
  const Response not_found = router.dispatch(missing);
  EXPECT_EQ(not_found.status, 404);
  EXPECT_NE(not_found.body.find("\"error\""), std::string::npos);
  auto wrong = request("DELETE", "/health");
  const Response not_allowed = router.dispatch(wrong);
  EXPECT_EQ(not_allowed.status, 405);
  ASSERT_FALSE(not_allowed.headers.empty());
  EXPECT_EQ(not_allowed.headers[0].second, "GET, HEAD");
}

TEST(Router, AnUnknownPathThatIsNoUtf8IsQuotedAsValidJson) {
  Router router;
  auto missing = request("GET", "/v1/\xff\xfe");
  const Response not_found = router.dispatch(missing);
  EXPECT_EQ(not_found.status, 404);
  EXPECT_TRUE(is_valid_utf8(not_found.body));
  boost::system::error_code ec;
  const auto body = boost::json::parse(not_found.body, ec);
  ASSERT_FALSE(ec) << not_found.body;
  EXPECT_EQ(body.at("error").at("message").as_string(), "no such endpoint: /v1/\uFFFD\uFFFD");
}

TEST(Router, HeadGoesToTheGetRoute) {
  Router router;
  router.add("GET", "/v1/sessions/{id}/messages",
             [](Request& r) { return Response::text(200, std::string(r.param("id"))); });
  router.add("POST", "/v1/answer", [](Request&) { return Response::text(200, "posted"); });
  auto head = request("HEAD", "/v1/sessions/abc/messages");
  EXPECT_EQ(router.dispatch(head).body, "abc");  // the connection leaves the body out
  auto post_only = request("HEAD", "/v1/answer");
  const Response refused = router.dispatch(post_only);
  EXPECT_EQ(refused.status, 405);
  EXPECT_EQ(refused.headers[0].second, "POST");
}

TEST(Router, NamesTheMatchedRouteByMethodAndPatternBeforeItsHandler) {
  Router router;
  std::vector<std::string> names;
  router.on_match([&](const Request&, const std::string& name) { names.push_back(name); });
  router.add("GET", "/v1/models", [&](Request&) {
    names.push_back("handler");  // after its name
    return Response::text(200, "models");
  });
  router.add("POST", "/v1/sessions/{id}/messages",
             [](Request&) { return Response::text(200, ""); });
  auto get = request("GET", "/v1/models");
  router.dispatch(get);
  auto head = request("HEAD", "/v1/models");
  router.dispatch(head);
  auto post = request("POST", "/v1/sessions/abc/messages");
  router.dispatch(post);
  auto missing = request("GET", "/nope");  // no route: nothing is named
  router.dispatch(missing);
  auto wrong = request("DELETE", "/v1/models");
  router.dispatch(wrong);
  EXPECT_EQ(names, (std::vector<std::string>{"GET /v1/models", "handler", "HEAD /v1/models",
                                             "handler", "POST /v1/sessions/{id}/messages"}));
}

TEST(Request, DecodesQueryParameters) {
  Request r;
  r.query = "q=card+not%20arrived&k=3&flag";
  EXPECT_EQ(r.query_param("q"), "card not arrived");
  EXPECT_EQ(r.query_param("k"), "3");
  EXPECT_EQ(r.query_param("flag"), "");
  EXPECT_FALSE(r.query_param("missing").has_value());
}

}  // namespace
}  // namespace supportd::http
