// `supportd model info` (model::read_model_info) on files that are not whole models.
#include "model/info.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "test_model.h"

namespace supportd::model {
namespace {

namespace fs = std::filesystem;

TEST(ModelInfo, AModelWhoseWeightsAreCutOffIsCalledTruncated) {
  const std::string whole = testing::synthesized_model("tiny", "f16");
  ASSERT_TRUE(read_model_info(whole)) << "the whole file reads";
  std::ifstream in(whole, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  const fs::path cut =
      fs::temp_directory_path() / ("supportd-info-cut-" + std::to_string(::getpid()) + ".gguf");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 1000);
  const auto info = read_model_info(cut.string());
  fs::remove(cut);
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().code, ErrorCode::kCorrupt);
  EXPECT_NE(info.error().message.find("is truncated"), std::string::npos) << info.error().message;
}

TEST(ModelInfo, ADirectoryIsNamedAsOne) {
  const auto info = read_model_info(fs::temp_directory_path().string());
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().message.find("is a directory"), std::string::npos) << info.error().message;
}

}  // namespace
}  // namespace supportd::model
