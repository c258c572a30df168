// A missing or damaged weight file is a clear error naming it, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "encoder/sentence_encoder.h"

namespace supportd::encoder {
namespace {

namespace fs = std::filesystem;

class WeightFileErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ =
        fs::temp_directory_path() / ("supportd-encoder-test-" + std::to_string(::getpid()));
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }

  // A copy of the real weight file, changed by `damage`.
  std::string damaged_copy(const std::function<void(std::string&)>& damage) {
    std::ifstream in(SentenceEncoder::default_path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_GT(bytes.size(), 1000u) << "no weight file at " << SentenceEncoder::default_path();
    damage(bytes);
    const std::string path = (directory_ / "damaged.bin").string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  static Error load_error(const std::string& path) {
    auto encoder = SentenceEncoder::load(path);
    EXPECT_FALSE(encoder.ok()) << path << " loaded";
    return encoder.ok() ? Error{} : encoder.error();
  }

  fs::path directory_;
};

TEST_F(WeightFileErrors, MissingFileIsNotFoundAndNamed) {
  const std::string path = (directory_ / "absent.bin").string();
  const Error error = load_error(path);
  EXPECT_EQ(error.code, ErrorCode::kNotFound);
  EXPECT_NE(error.message.find(path), std::string::npos) << error.message;
}

TEST_F(WeightFileErrors, DirectoryIsRefused) {
  const Error error = load_error(directory_.string());
  EXPECT_EQ(error.code, ErrorCode::kIo);
  EXPECT_NE(error.message.find(directory_.string()), std::string::npos) << error.message;
}

TEST_F(WeightFileErrors, EmptyFileIsCorrupt) {
  const std::string path = damaged_copy([](std::string& bytes) { bytes.clear(); });
  const Error error = load_error(path);
  EXPECT_EQ(error.code, ErrorCode::kCorrupt);
  EXPECT_NE(error.message.find(path), std::string::npos) << error.message;
}

TEST_F(WeightFileErrors, TruncatedFileIsCorrupt) {
  const std::string path = damaged_copy([](std::string& bytes) { bytes.resize(bytes.size() / 2); });
  const Error error = load_error(path);
  EXPECT_EQ(error.code, ErrorCode::kCorrupt);
  EXPECT_NE(error.message.find("truncated"), std::string::npos) << error.message;
}

TEST_F(WeightFileErrors, FlippedByteFailsTheChecksum) {
  const std::string path =
      damaged_copy([](std::string& bytes) { bytes[bytes.size() / 3] ^= 0x10; });
  const Error error = load_error(path);
  EXPECT_EQ(error.code, ErrorCode::kCorrupt);
  EXPECT_NE(error.message.find("checksum"), std::string::npos) << error.message;
}

TEST_F(WeightFileErrors, OtherFileTypeHasBadMagic) {
  const std::string path = damaged_copy([](std::string& bytes) { bytes.replace(0, 4, "GGUF"); });
  const Error error = load_error(path);
  EXPECT_EQ(error.code, ErrorCode::kCorrupt);
  EXPECT_NE(error.message.find("magic"), std::string::npos) << error.message;
}

TEST_F(WeightFileErrors, DefaultPathFollowsTheEnvironment) {
  ::setenv("SUPPORTD_ENCODER", "/somewhere/weights.bin", 1);
  EXPECT_EQ(SentenceEncoder::default_path(), "/somewhere/weights.bin");
  ::unsetenv("SUPPORTD_ENCODER");
  ::setenv("SUPPORTD_CACHE", "/cache", 1);
  EXPECT_EQ(SentenceEncoder::default_path().rfind("/cache/encoder/", 0), 0u);
  ::unsetenv("SUPPORTD_CACHE");
}

}  // namespace
}  // namespace supportd::encoder
