// Request bodies as JSON objects: errors say where and what; an empty body may mean no fields.
#include "api/json_body.h"

#include <gtest/gtest.h>

#include <string>

namespace supportd::api {
namespace {

std::string why(std::string_view text) {
  auto parsed = parse_json_object(text, false);
  EXPECT_FALSE(parsed) << text;
  return parsed ? std::string() : parsed.error().message;
}

TEST(JsonBody, ErrorsSayWhereAndWhat) {
  EXPECT_NE(why(R"({"a": tru})").find("not valid JSON at byte 6"), std::string::npos)
      << why(R"({"a": tru})");
  EXPECT_NE(why(R"({"a": 1)").find("ends before the JSON does"), std::string::npos);
  EXPECT_NE(why("   ").find("request body is empty"), std::string::npos);
  EXPECT_NE(why("[1, 2]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(why("{\"a\": \"\xff\"}").find("not valid UTF-8 (byte 7)"), std::string::npos);
  const std::string deep = "{\"a\":" + std::string(40, '[') + std::string(40, ']') + "}";
  EXPECT_NE(why(deep).find("nests deeper than 32 levels"), std::string::npos) << why(deep);
}

TEST(JsonBody, AnEmptyBodyMayMeanNoFields) {
  auto parsed = parse_json_object(" \n", true);
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->empty());
  auto object = parse_json_object(R"({"question": "refund"})", false);
  ASSERT_TRUE(object);
  EXPECT_EQ(object->at("question").as_string(), "refund");
}

}  // namespace
}  // namespace supportd::api
