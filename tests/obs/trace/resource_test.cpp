// The resource of exported spans: OTEL_RESOURCE_ATTRIBUTES read as the SDK specification says,
// OTEL_SERVICE_NAME winning, the detected attributes overridden by the user's.
#include "obs/trace/resource.h"

#include <gtest/gtest.h>

namespace supportd::obs::trace {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(ResourceAttributes, ReadsKeyValueListsWithPercentEscapes) {
  auto pairs = parse_resource_attributes(" deployment.environment=prod , team=cs%20tools,,x=");
  ASSERT_TRUE(pairs) << pairs.error().message;
  EXPECT_EQ(*pairs, (Pairs{{"deployment.environment", "prod"}, {"team", "cs tools"}, {"x", ""}}));
  auto empty = parse_resource_attributes("");
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->empty());
}

TEST(ResourceAttributes, RefusesMembersThatAreNotKeyValue) {
  for (const char* bad : {"novalue", "=x", "a=b,c", "a=%zz", "a=%4"}) {
    auto pairs = parse_resource_attributes(bad);
    ASSERT_FALSE(pairs) << bad;
    EXPECT_EQ(pairs.error().code, ErrorCode::kInvalidArgument);
    EXPECT_FALSE(pairs.error().message.empty());
  }
}

TEST(Resource, ServiceNameFromTheVariableThenTheAttributesThenSupportd) {
  EXPECT_EQ(make_resource("desk-eu", {{"service.name", "other"}}, "1").text("service.name"),
            "desk-eu");
  EXPECT_EQ(make_resource("", {{"service.name", "other"}}, "1").text("service.name"), "other");
  EXPECT_EQ(make_resource("", {}, "1").text("service.name"), "supportd");
}

TEST(Resource, DetectsTheProcessAndLetsTheUserOverride) {
  const Resource r = make_resource("", {{"host.name", "edge-1"}, {"team", "cs"}}, "0.1.0");
  EXPECT_EQ(r.text("service.version"), "0.1.0");
  EXPECT_EQ(r.text("host.name"), "edge-1");
  EXPECT_EQ(r.text("team"), "cs");
  EXPECT_EQ(r.text("telemetry.sdk.language"), "cpp");
  EXPECT_EQ(r.text("service.instance.id").size(), 32u);
  // Each key once: an overridden attribute is replaced, not repeated.
  int hosts = 0;
  for (const auto& [key, value] : r.attributes)
    hosts += key == "host.name";
  EXPECT_EQ(hosts, 1);
}

}  // namespace
}  // namespace supportd::obs::trace
