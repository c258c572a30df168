// A knowledge base's binary files damaged on disk (truncated, bytes flipped, sizes that lie) are
// refused with kCorrupt naming the file, before fastText, hnswlib or an allocation trusts them:
// never a hang, an abort or a crash at the first search.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include "kb/classify/intent_classifier.h"
#include "kb/classify/softmax_head.h"
#include "kb/files/kb_files.h"
#include "kb/index/dense_index.h"
#include "test_dir.h"

namespace supportd::kb {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

template <typename T>
std::string with(std::string bytes, std::size_t offset, T value) {
  bytes.replace(offset, sizeof value, reinterpret_cast<const char*>(&value), sizeof value);
  return bytes;
}

TEST(DamagedFiles, AClassifierIsCheckedBeforeFastTextReadsIt) {
  testing::TestDir dir("damaged-classifier");
  std::vector<std::string> texts;
  std::vector<int> classes;
  for (int i = 0; i < 30; ++i) {
    texts.push_back(i % 2 ? "where is my card " + std::to_string(i) : "top up failed again");
    classes.push_back(i % 2);
  }
  ClassifierParams params;
  params.epochs = 5;
  params.buckets = 2000;
  auto classifier = IntentClassifier::train(texts, classes, 2, params, dir.path());
  ASSERT_TRUE(classifier.ok()) << classifier.error().message;
  const std::string path = dir.path() + "/classifier-1.bin";
  ASSERT_TRUE((*classifier)->save(path).ok());
  const std::string good = read_bytes(path);
  ASSERT_GT(good.size(), 20000u);
  // fastText 0.9 aborts on the first two, loads the next three, and loops allocating without
  // bound on the last two: each must be refused by the check instead.
  const std::pair<const char*, std::string> damaged[] = {
      {"truncated to 10000 bytes", good.substr(0, 10000)},
      {"dimensions changed", with<std::int32_t>(good, 8, 51)},
      {"a NaN weight", with(good, good.size() / 2, ~std::uint64_t{0})},  // 8 bytes: one whole float
      {"one byte more", good + "x"},
      {"one byte less", good.substr(0, good.size() - 1)},
      {"words count changed", with<std::int32_t>(good, 68, 1 << 30)},
      {"truncated to 100 bytes", good.substr(0, 100)}};
  for (const auto& [what, bytes] : damaged) {
    write_bytes(path, bytes);
    auto loaded = IntentClassifier::load(path, 2);
    ASSERT_FALSE(loaded.ok()) << what;
    EXPECT_EQ(loaded.error().code, ErrorCode::kCorrupt) << what;
    EXPECT_NE(loaded.error().message.find(path), std::string::npos) << loaded.error().message;
  }
  write_bytes(path, good);
  EXPECT_TRUE(IntentClassifier::load(path, 2).ok());
}

TEST(DamagedFiles, AGraphWithBadSizesOrLinksIsRefused) {
  const int dimensions = 8, rows = 600;
  std::mt19937 random(5);
  std::normal_distribution<float> normal;
  std::vector<float> values(static_cast<std::size_t>(rows * dimensions));
  for (float& v : values)
    v = normal(random);
  testing::TestDir dir("damaged-graph");
  const std::string path = dir.path() + "/graph.bin";
  auto index = DenseIndex::build(values, dimensions, /*exact_limit=*/500);
  ASSERT_TRUE(index.ok());
  ASSERT_TRUE((*index)->save_graph(path).ok());
  const std::string good = read_bytes(path);
  // hnswlib's layout: 6 size_t, an int, a uint32, 3 size_t (M), a double, a size_t, then per
  // element its level-0 links (count, then 2M ids), its vector and its label.
  constexpr std::size_t kHeader = 96, kFirstLink = kHeader + 4;
  const std::size_t label = kHeader + (16 * 2 * 4 + 4) + dimensions * 4;
  const std::pair<const char*, std::string> damaged[] = {
      {"bytes per element", with<std::size_t>(good, 24, std::size_t{1} << 40)},
      {"M", with<std::size_t>(good, 72, 17)},
      {"a link out of range", with<std::uint32_t>(good, kFirstLink, 0xFFFFFFFFu)},
      {"a label out of range", with<std::size_t>(good, label, 1u << 30)},
      {"truncated", good.substr(0, good.size() / 2)}};
  for (const auto& [what, bytes] : damaged) {
    write_bytes(path, bytes);
    auto loaded = DenseIndex::build(values, dimensions, 500, path);
    ASSERT_FALSE(loaded.ok()) << what;
    EXPECT_EQ(loaded.error().code, ErrorCode::kCorrupt) << what;
    EXPECT_NE(loaded.error().message.find(path), std::string::npos) << loaded.error().message;
  }
  write_bytes(path, good);
  EXPECT_TRUE(DenseIndex::build(values, dimensions, 500, path).ok());
}

TEST(DamagedFiles, VectorAndHeadSizesMustMatchTheFileBeforeAllocating) {
  testing::TestDir dir("damaged-vectors");
  const std::string vectors = dir.path() + "/vectors.bin";
  StoredVectors stored{4, 3, {0, 2}, {1, 0, 0, 0, 0, 1, 0, 0}};
  ASSERT_TRUE(write_vectors(vectors, stored).ok());
  const std::string good = read_bytes(vectors);
  ASSERT_TRUE(read_vectors(vectors).ok());
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // Rows and documents that claim 2^27 rows of 4 floats: gigabytes the file does not have.
  for (const std::string& bytes :
       {with<std::uint32_t>(with<std::uint32_t>(good, 12, 1u << 27), 16, 1u << 28),
        with(good, good.size() - 4, nan), good.substr(0, good.size() - 1)}) {
    write_bytes(vectors, bytes);
    auto read = read_vectors(vectors);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error().code, ErrorCode::kCorrupt);
    EXPECT_NE(read.error().message.find(vectors), std::string::npos);
  }

  // A head of 2 dimensions and 2 targets, as SoftmaxHead::save writes it.
  std::string head("SKBHEAD1", 8);
  for (std::uint32_t v : {2u, 2u, 0u, 1u})
    head.append(reinterpret_cast<const char*>(&v), 4);
  for (float v : {1.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f})
    head.append(reinterpret_cast<const char*>(&v), 4);
  const std::string head_path = dir.path() + "/head.bin";
  write_bytes(head_path, head);
  ASSERT_TRUE(SoftmaxHead::load(head_path).ok());
  for (const std::string& bytes :
       {with<std::uint32_t>(with<std::uint32_t>(head, 8, 65536), 12, 1u << 24),
        with(head, head.size() - 4, nan)}) {
    write_bytes(head_path, bytes);
    auto loaded = SoftmaxHead::load(head_path);
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.error().code, ErrorCode::kCorrupt);
    EXPECT_NE(loaded.error().message.find(head_path), std::string::npos);
  }
}

}  // namespace
}  // namespace supportd::kb
