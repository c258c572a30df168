// `supportd model quantize` (model::quantize): the output appears whole or not at all, and
// neither the input nor an existing output is ever damaged by a refusal or a failure.
#include "model/quantize.h"

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

std::string contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class ModelQuantize : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() / ("supportd-quantize-" + std::to_string(::getpid()));
    fs::remove_all(directory_);
    fs::create_directories(directory_);
    input_ = directory_ / "tiny-f16.gguf";
    fs::copy_file(testing::synthesized_model("tiny", "f16"), input_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(directory_, ec);
  }
  // Hidden temporary files the quantizer left behind.
  int leftovers() const {
    int count = 0;
    for (const auto& entry : fs::directory_iterator(directory_))
      count += entry.path().filename().string().starts_with(".supportd-") ? 1 : 0;
    return count;
  }

  fs::path directory_, input_;
};

TEST_F(ModelQuantize, WritesAReadableOutputAndNothingElse) {
  const fs::path out = directory_ / "tiny-q8_0.gguf";
  ASSERT_TRUE(quantize(input_.string(), out.string(), "q8_0"));
  EXPECT_GT(fs::file_size(out), 0u);
  EXPECT_LT(fs::file_size(out), fs::file_size(input_));
  EXPECT_NE(fs::status(out).permissions() & fs::perms::others_read, fs::perms::none);
  EXPECT_EQ(leftovers(), 0);
}

TEST_F(ModelQuantize, RefusesToWriteOverItsInput) {
  const std::string before = contents(input_);
  fs::create_symlink(input_, directory_ / "link.gguf");
  for (const fs::path& out : {input_, directory_ / "link.gguf"}) {
    const Status status = quantize(input_.string(), out.string(), "q8_0");
    ASSERT_FALSE(status) << out;
    EXPECT_NE(status.error().message.find("is the input file"), std::string::npos)
        << status.error().message;
  }
  EXPECT_EQ(contents(input_), before);
}

TEST_F(ModelQuantize, AFailureLeavesAnExistingOutputAsItWas) {
  const fs::path q8 = directory_ / "tiny-q8_0.gguf";
  ASSERT_TRUE(quantize(input_.string(), q8.string(), "q8_0"));
  const fs::path existing = directory_ / "existing.gguf";
  std::ofstream(existing) << "an earlier file";
  // llama.cpp refuses to quantize an already quantized model again.
  const Status status = quantize(q8.string(), existing.string(), "q4_0");
  ASSERT_FALSE(status);
  EXPECT_EQ(contents(existing), "an earlier file");
  EXPECT_EQ(leftovers(), 0);
}

TEST_F(ModelQuantize, AnOutputInNoDirectoryIsNamed) {
  const std::string out = (directory_ / "missing" / "q.gguf").string();
  const Status status = quantize(input_.string(), out, "q8_0");
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().message.find(out), std::string::npos) << status.error().message;
}

}  // namespace
}  // namespace supportd::model
