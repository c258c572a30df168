// The cross-origin policy: origin lists parsed (naming a bad entry), listed origins and wildcard
// subdomains allowed, same origin by host or forwarded host, open routes' headers and preflights
// for allowed sites only, own routes refusing other sites' pages.
#include "http/cross_origin.h"

#include <gtest/gtest.h>

namespace supportd::http {
namespace {

Request from(std::string origin, std::string host = "support.example.com",
             std::string method = "POST") {
  Request r;
  r.method = std::move(method);
  r.path = "/v1/sessions";
  if (!origin.empty()) r.headers.emplace_back("origin", std::move(origin));
  r.headers.emplace_back("host", std::move(host));
  return r;
}

std::string header(const Response& response, std::string_view name) {
  for (const auto& [key, value] : response.headers) {
    if (key == name) return value;
  }
  return {};
}

Router::Handler ok() {
  return [](Request&) { return Response::json(200, "{}"); };
}

TEST(CrossOrigin, ParsesListsAndNamesTheEntryThatIsNotAnOrigin) {
  auto listed =
      CrossOrigin::parse(" https://Shop.Example.com/ ,http://localhost:3000,https://x.org:443");
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  EXPECT_EQ(listed->describe(), "https://shop.example.com, http://localhost:3000, https://x.org");
  EXPECT_EQ(CrossOrigin::parse("*")->describe(), "*");
  EXPECT_EQ(CrossOrigin::parse("none")->describe(), "none");
  EXPECT_EQ(CrossOrigin().describe(), "*");
  for (const char* wrong :
       {"shop.example.com", "ftp://files.example.com", "https://shop.example.com/path", "https://",
        "https://a b.com", "https://shop.*.com"}) {
    auto parsed = CrossOrigin::parse(std::string("https://ok.example.com,") + wrong);
    ASSERT_FALSE(parsed.ok()) << wrong;
    EXPECT_NE(parsed.error().message.find(wrong), std::string::npos) << parsed.error().message;
  }
}

TEST(CrossOrigin, AllowsListedOriginsAndSubdomainsOfAWildcard) {
  auto policy = CrossOrigin::parse("https://shop.example.com, https://*.example.org");
  ASSERT_TRUE(policy.ok());
  EXPECT_TRUE(policy->allows("https://shop.example.com"));
  EXPECT_TRUE(policy->allows("https://shop.example.com:443"));
  EXPECT_FALSE(policy->allows("http://shop.example.com"));  // another scheme is another site
  EXPECT_FALSE(policy->allows("https://shop.example.com:8443"));
  EXPECT_FALSE(policy->allows("https://evil-shop.example.com"));
  EXPECT_TRUE(policy->allows("https://a.example.org"));
  EXPECT_TRUE(policy->allows("https://a.b.example.org"));
  EXPECT_FALSE(policy->allows("https://example.org"));
  EXPECT_FALSE(policy->allows("https://badexample.org"));
  EXPECT_FALSE(policy->allows("https://*.example.org"));
  EXPECT_FALSE(policy->allows("null"));
  EXPECT_FALSE(CrossOrigin::parse("none")->allows("https://shop.example.com"));
  EXPECT_TRUE(CrossOrigin().allows("https://anything.example"));
}

TEST(CrossOrigin, SameOriginIsTheHostOrTheForwardedHost) {
  EXPECT_TRUE(same_origin(from("https://support.example.com")));
  EXPECT_TRUE(same_origin(from("https://support.example.com", "support.example.com:443")));
  EXPECT_TRUE(same_origin(from("http://127.0.0.1:8080", "127.0.0.1:8080")));
  EXPECT_FALSE(same_origin(from("http://127.0.0.1:8081", "127.0.0.1:8080")));
  EXPECT_FALSE(same_origin(from("https://evil.example", "support.example.com")));
  EXPECT_FALSE(same_origin(from("", "support.example.com")));
  Request proxied = from("https://support.example.com", "127.0.0.1:8080");
  EXPECT_FALSE(same_origin(proxied));
  proxied.headers.emplace_back("x-forwarded-host", "support.example.com, 10.0.0.2");
  EXPECT_TRUE(same_origin(proxied));
}

TEST(CrossOrigin, OpenRoutesAnswerAllowedSitesWithHeadersAndRefuseOthers) {
  const auto policy = *CrossOrigin::parse("https://shop.example.com");
  const Router::Handler handler = policy.open(ok());

  Request allowed = from("https://shop.example.com");
  const Response yes = handler(allowed);
  EXPECT_EQ(yes.status, 200);
  EXPECT_EQ(header(yes, "Access-Control-Allow-Origin"), "https://shop.example.com");
  EXPECT_EQ(header(yes, "Vary"), "Origin");
  EXPECT_NE(header(yes, "Access-Control-Expose-Headers").find("Retry-After"), std::string::npos);

  Request other = from("https://evil.example");
  const Response no = handler(other);
  EXPECT_EQ(no.status, 403);
  EXPECT_NE(no.body.find("origin_not_allowed"), std::string::npos);
  EXPECT_NE(no.body.find("https://evil.example"), std::string::npos);
  EXPECT_TRUE(header(no, "Access-Control-Allow-Origin").empty());

  Request own_page = from("https://support.example.com");  // the demo page served by us
  EXPECT_EQ(handler(own_page).status, 200);
  Request no_origin = from("");  // curl, SDKs
  const Response plain = handler(no_origin);
  EXPECT_EQ(plain.status, 200);
  EXPECT_TRUE(header(plain, "Access-Control-Allow-Origin").empty());

  Request anyone = from("https://evil.example");
  const Response star = CrossOrigin().open(ok())(anyone);
  EXPECT_EQ(star.status, 200);
  EXPECT_EQ(header(star, "Access-Control-Allow-Origin"), "*");
}

TEST(CrossOrigin, PreflightsListMethodsAndHeadersForAllowedSitesOnly) {
  const auto policy = *CrossOrigin::parse("https://shop.example.com");
  Request preflight = from("https://shop.example.com", "support.example.com", "OPTIONS");
  preflight.headers.emplace_back("access-control-request-method", "POST");
  preflight.headers.emplace_back("access-control-request-headers", "content-type, authorization");
  preflight.headers.emplace_back("access-control-request-private-network", "true");
  const Response yes = policy.preflight(preflight, "GET, POST");
  EXPECT_EQ(yes.status, 204);
  EXPECT_EQ(header(yes, "Access-Control-Allow-Origin"), "https://shop.example.com");
  EXPECT_EQ(header(yes, "Access-Control-Allow-Methods"), "GET, POST");
  const std::string allowed_headers = header(yes, "Access-Control-Allow-Headers");
  for (const char* name : {"Authorization", "Content-Type", "X-Priority", "X-Timeout"})
    EXPECT_NE(allowed_headers.find(name), std::string::npos) << name;
  EXPECT_FALSE(header(yes, "Access-Control-Max-Age").empty());
  EXPECT_EQ(header(yes, "Access-Control-Allow-Private-Network"), "true");

  Request evil = from("https://evil.example", "support.example.com", "OPTIONS");
  evil.headers.emplace_back("access-control-request-method", "POST");
  EXPECT_EQ(policy.preflight(evil, "POST").status, 403);

  Request plain = from("", "support.example.com", "OPTIONS");  // not a preflight
  const Response options = policy.preflight(plain, "GET, POST");
  EXPECT_EQ(options.status, 204);
  EXPECT_EQ(header(options, "Allow"), "GET, POST, OPTIONS");
}

TEST(CrossOrigin, OwnRoutesRefuseAnotherSitesPagesEvenWhenAnySiteMayCallTheOpenOnes) {
  for (const char* origins : {"*", "https://shop.example.com"}) {
    const Router::Handler handler = CrossOrigin::parse(origins)->same_site(ok());
    Request socket = from("https://evil.example", "support.example.com", "GET");
    socket.websocket_upgrade = true;
    EXPECT_EQ(handler(socket).status, 403) << origins;
    Request own = from("https://support.example.com", "support.example.com", "GET");
    own.websocket_upgrade = true;
    EXPECT_EQ(handler(own).status, 200) << origins;
    Request tool = from("", "support.example.com", "GET");  // wscat, a bot
    tool.websocket_upgrade = true;
    EXPECT_EQ(handler(tool).status, 200) << origins;
    Request form = from("https://evil.example", "support.example.com", "POST");  // a form
    EXPECT_EQ(handler(form).status, 403) << origins;
  }
  // An origin listed by name may (the console behind a proxy that rewrites Host).
  Request listed = from("https://shop.example.com", "127.0.0.1:8080", "GET");
  listed.websocket_upgrade = true;
  EXPECT_EQ(CrossOrigin::parse("https://shop.example.com")->same_site(ok())(listed).status, 200);
  // A subdomain pattern opens the open routes to every subdomain, not the own ones.
  const auto pattern = CrossOrigin::parse("https://shop.example.com, https://*.example.org");
  Request subdomain = from("https://a.example.org", "127.0.0.1:8080", "POST");
  EXPECT_EQ(pattern->open(ok())(subdomain).status, 200);
  EXPECT_EQ(pattern->same_site(ok())(subdomain).status, 403);
  EXPECT_EQ(pattern->same_site(ok())(listed).status, 200);
  EXPECT_FALSE(pattern->lists_by_name("https://a.example.org"));
  EXPECT_FALSE(pattern->lists_by_name("https://*.example.org"));
  EXPECT_TRUE(pattern->lists_by_name("HTTPS://Shop.Example.com:443"));
}

}  // namespace
}  // namespace supportd::http
