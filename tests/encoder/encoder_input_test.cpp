// What the encoder does with awkward input: invalid UTF-8, over-long text, empty batches, and
// many callers at once.
#include <gtest/gtest.h>

#include <cmath>
#include <thread>

#include "encoder/sentence_encoder.h"

namespace supportd::encoder {
namespace {

class EncoderInput : public ::testing::Test {
 protected:
  void SetUp() override {
    auto loaded = SentenceEncoder::load(SentenceEncoder::default_path());
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    encoder_ = std::move(*loaded);
  }
  std::unique_ptr<SentenceEncoder> encoder_;
};

std::string words(int count, const std::string& word = "card") {
  std::string text;
  for (int i = 0; i < count; ++i)
    text += (i ? " " : "") + word;
  return text;
}

float max_difference(const Embedding& a, const Embedding& b) {
  float worst = 0;
  for (int i = 0; i < kDimensions; ++i)
    worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}

TEST_F(EncoderInput, InvalidUtf8IsRefusedBeforeTheTokenizer) {
  for (std::string bad : {"\xff", "card \xc3", "\xed\xa0\x80 surrogate", "over\xc0\xaflong"}) {
    auto ids = encoder_->tokenize(bad);
    ASSERT_FALSE(ids.ok());
    EXPECT_EQ(ids.error().code, ErrorCode::kInvalidArgument);
    auto vector = encoder_->encode(bad);
    ASSERT_FALSE(vector.ok());
    EXPECT_EQ(vector.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(vector.error().message.find("UTF-8"), std::string::npos);
  }
}

TEST_F(EncoderInput, BatchWithInvalidUtf8NamesTheText) {
  const std::vector<std::string> texts = {"fine", "also fine", "broken \xe2\x82"};
  auto vectors = encoder_->encode_batch(texts);
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(vectors.error().message.find("text 2"), std::string::npos) << vectors.error().message;
}

TEST_F(EncoderInput, OverLongTextIsTruncatedAndCounted) {
  const std::string text = words(300);
  auto ids = encoder_->tokenize(text);
  ASSERT_TRUE(ids.ok());
  EXPECT_GT(ids->size(), static_cast<std::size_t>(kMaxTokens));  // tokenize does not truncate
  const std::uint64_t before = encoder_->truncated_count();
  auto long_vector = encoder_->encode(text);
  ASSERT_TRUE(long_vector.ok());
  EXPECT_EQ(encoder_->truncated_count(), before + 1);
  // Only the first kMaxTokens tokens count: more words after them change nothing.
  auto longer = encoder_->encode(text + " " + words(50, "refund"));
  ASSERT_TRUE(longer.ok());
  EXPECT_EQ(*long_vector, *longer);
  EXPECT_EQ(encoder_->truncated_count(), before + 2);
  // A text of exactly kMaxTokens tokens is not truncated.
  std::string exact;
  for (int n = 1; n < 300 && exact.empty(); ++n)
    if (encoder_->tokenize(words(n))->size() == static_cast<std::size_t>(kMaxTokens))
      exact = words(n);
  ASSERT_FALSE(exact.empty());
  ASSERT_TRUE(encoder_->encode(exact).ok());
  EXPECT_EQ(encoder_->truncated_count(), before + 2);
}

TEST_F(EncoderInput, BatchCountsEveryTruncatedText) {
  const std::uint64_t before = encoder_->truncated_count();
  const std::vector<std::string> texts = {words(200), "short", words(129), words(3)};
  auto vectors = encoder_->encode_batch(texts, 2);
  ASSERT_TRUE(vectors.ok());
  EXPECT_EQ(encoder_->truncated_count(), before + 2);
}

TEST_F(EncoderInput, EmptyBatchGivesNothing) {
  auto vectors = encoder_->encode_batch(std::vector<std::string>{});
  ASSERT_TRUE(vectors.ok());
  EXPECT_TRUE(vectors->empty());
}

TEST_F(EncoderInput, BatchAgreesWithOneAtATimeWhateverTheThreads) {
  std::vector<std::string> texts;
  for (int i = 0; i < 70; ++i)
    texts.push_back(words(1 + i % 23, i % 2 ? "refund" : "card"));
  texts.push_back("");
  texts.push_back(words(140));
  std::vector<Embedding> one_at_a_time;
  for (const auto& text : texts)
    one_at_a_time.push_back(*encoder_->encode(text));
  for (int threads : {1, 2, 3, 0}) {
    auto vectors = encoder_->encode_batch(texts, threads);
    ASSERT_TRUE(vectors.ok());
    for (std::size_t i = 0; i < texts.size(); ++i)
      EXPECT_LE(max_difference((*vectors)[i], one_at_a_time[i]), 1e-6f)
          << "threads " << threads << ", text " << i;
  }
}

TEST(EncoderThreads, ConcurrentCallersGetTheSameVectorsWithEitherBackend) {
  const std::vector<std::string> texts = {"my card still isn't here", "Card delivery times",
                                          "I was charged twice", words(150)};
  for (Backend backend : {Backend::kEigen, Backend::kGgml}) {
    auto loaded = SentenceEncoder::load(SentenceEncoder::default_path(), backend);
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    const SentenceEncoder& encoder = **loaded;
    std::vector<Embedding> expected;
    for (const auto& text : texts)
      expected.push_back(*encoder.encode(text));
    std::vector<int> mismatches(4, 0);
    {
      std::vector<std::jthread> callers;
      for (int t = 0; t < 4; ++t)
        callers.emplace_back([&, t] {
          for (int round = 0; round < 3; ++round) {
            for (std::size_t i = 0; i < texts.size(); ++i)
              if (*encoder.encode(texts[i]) != expected[i]) ++mismatches[t];
            auto batch = encoder.encode_batch(texts, 2);
            for (std::size_t i = 0; i < texts.size(); ++i)
              if (max_difference((*batch)[i], expected[i]) > 1e-6f) ++mismatches[t];
          }
        });
    }
    for (int count : mismatches)
      EXPECT_EQ(count, 0);
  }
}

}  // namespace
}  // namespace supportd::encoder
