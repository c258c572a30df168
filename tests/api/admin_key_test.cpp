// The admin key on its own: reading its file (what is refused, naming the file), the bearer
// check (404 without a key, 401 with a JSON body for a missing or wrong one), the comparison,
// and which paths are admin paths.
#include "api/admin_key.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace supportd::api {
namespace {

class AdminKeyFile : public ::testing::Test {
 protected:
  std::string write(const std::string& content) {
    const auto path =
        std::filesystem::path(::testing::TempDir()) /
        ("supportd-admin-key-" + std::to_string(::getpid()) + "-" + std::to_string(files_++));
    std::ofstream(path, std::ios::binary) << content;
    written_.push_back(path);
    return path.string();
  }
  void TearDown() override {
    for (const auto& path : written_)
      std::filesystem::remove(path);
  }
  int files_ = 0;
  std::vector<std::filesystem::path> written_;
};

http::Request with_authorization(std::string value) {
  http::Request request;
  request.method = "GET";
  request.path = "/admin/faults";
  if (!value.empty()) request.headers.emplace_back("authorization", std::move(value));
  return request;
}

const std::string kKey = "0123456789abcdef-admin";

TEST(AdminKey, ComparesWholeStrings) {
  EXPECT_TRUE(equal_in_constant_time("abc", "abc"));
  EXPECT_TRUE(equal_in_constant_time("", ""));
  EXPECT_FALSE(equal_in_constant_time("abc", "abd"));
  EXPECT_FALSE(equal_in_constant_time("abc", "abcd"));
  EXPECT_FALSE(equal_in_constant_time("abcd", "abc"));
  EXPECT_FALSE(equal_in_constant_time("", "a"));
  EXPECT_FALSE(equal_in_constant_time(std::string("a\0b", 3), std::string("a\0c", 3)));
}

TEST_F(AdminKeyFile, ReadsTheKeyWithoutItsNewline) {
  auto key = AdminKey::read(write(kKey + "\n"));
  ASSERT_TRUE(key.ok()) << key.error().message;
  EXPECT_TRUE(key->configured());
  EXPECT_TRUE(key->check(with_authorization("Bearer " + kKey)).ok());
}

TEST_F(AdminKeyFile, RefusesEmptyShortOrMultiLineKeysNamingTheFile) {
  for (const std::string& content :
       {std::string("\n"), std::string("short-key\n"), kKey + "\n" + kKey + "\n", kKey + " x"}) {
    const std::string file = write(content);
    auto key = AdminKey::read(file);
    ASSERT_FALSE(key.ok()) << content;
    EXPECT_EQ(key.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(key.error().message.find(file), std::string::npos) << key.error().message;
  }
  auto missing = AdminKey::read("/nonexistent/supportd-admin-key");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nonexistent/supportd-admin-key"), std::string::npos);
}

TEST(AdminKey, WithoutAKeyEveryAdminRouteIsNotFound) {
  const AdminKey none;
  EXPECT_FALSE(none.configured());
  Status checked = none.check(with_authorization("Bearer " + kKey));
  ASSERT_FALSE(checked.ok());
  EXPECT_EQ(checked.error().code, ErrorCode::kNotFound);
  bool ran = false;
  auto guarded = none.guard([&ran](http::Request&) {
    ran = true;
    return http::Response::json(200, "{}");
  });
  http::Request request = with_authorization("Bearer " + kKey);
  const http::Response response = guarded(request);
  EXPECT_EQ(response.status, 404);
  EXPECT_FALSE(ran);
}

TEST(AdminKey, AMissingOrWrongKeyIsUnauthorizedWithAJsonBody) {
  const AdminKey key = AdminKey::of(kKey);
  bool ran = false;
  auto guarded = key.guard([&ran](http::Request&) {
    ran = true;
    return http::Response::json(200, R"({"ok":true})");
  });
  for (const std::string& header : {std::string(), "Bearer " + kKey + "x", "Basic " + kKey,
                                    std::string("Bearer "), "Bearer " + kKey.substr(1)}) {
    http::Request request = with_authorization(header);
    const http::Response response = guarded(request);
    EXPECT_EQ(response.status, 401) << header;
    EXPECT_EQ(response.content_type, "application/json");
    EXPECT_NE(response.body.find("\"error\""), std::string::npos) << response.body;
  }
  EXPECT_FALSE(ran);
  http::Request right = with_authorization("bearer " + kKey);
  EXPECT_EQ(guarded(right).status, 200);
  EXPECT_TRUE(ran);
}

TEST(AdminKey, AdminPathsAreTheAdminTree) {
  EXPECT_TRUE(is_admin_path("/admin"));
  EXPECT_TRUE(is_admin_path("/admin/faults"));
  EXPECT_TRUE(is_admin_path("/admin/faults/3"));
  EXPECT_FALSE(is_admin_path("/administrator"));
  EXPECT_TRUE(is_admin_path("/v1/admin/kb/reload"));
  EXPECT_FALSE(is_admin_path("/v1/administrator"));
}

}  // namespace
}  // namespace supportd::api
