// Plain-HTTP URLs as the OTLP exporter and the upstream engine read them (core/http_url.h).
#include "core/http_url.h"

#include <gtest/gtest.h>

namespace supportd {
namespace {

TEST(HttpUrl, SplitsHostPortAndPath) {
  auto url = parse_http_url("http://collector:4318/v1/traces", "--otlp-endpoint");
  ASSERT_TRUE(url);
  EXPECT_EQ(url->host, "collector");
  EXPECT_EQ(url->port, "4318");
  EXPECT_EQ(url->path, "/v1/traces");
  auto bare = parse_http_url("http://127.0.0.1", "x");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->port, "80");
  EXPECT_EQ(bare->path, "");
  auto v6 = parse_http_url("http://[::1]:4318/", "x");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, "4318");
  EXPECT_EQ(v6->path, "/");
  auto v6_bare = parse_http_url("http://[::1]", "x");
  ASSERT_TRUE(v6_bare);
  EXPECT_EQ(v6_bare->host, "::1");
  EXPECT_EQ(v6_bare->port, "80");
}

TEST(HttpUrl, RefusesWhatItCannotUseNamingTheOption) {
  auto tls = parse_http_url("https://tempo.example.com", "--otlp-endpoint");
  ASSERT_FALSE(tls);
  EXPECT_EQ(tls.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(tls.error().message.find("--otlp-endpoint"), std::string::npos);
  for (const char* bad : {"collector:4318", "http://", "http://:4318", "http://h:0", "http://h:x",
                          "http://h:65536", "ftp://h"}) {
    auto url = parse_http_url(bad, "--otlp-endpoint");
    ASSERT_FALSE(url) << bad;
    EXPECT_EQ(url.error().code, ErrorCode::kInvalidArgument) << bad;
    EXPECT_NE(url.error().message.find("--otlp-endpoint"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace supportd
