// The native encoder against the original: token ids exactly as the package's JavaScript
// tokenizer, vectors within 1e-5 of the TensorFlow.js graph, with both backends.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "encoder/sentence_encoder.h"
#include "reference.h"

namespace supportd::encoder {
namespace {

using supportd::testing::reference;
using supportd::testing::ReferenceCase;

constexpr float kTolerance = 1e-5f;

std::unique_ptr<SentenceEncoder> load_encoder(Backend backend = Backend::kDefault) {
  auto encoder = SentenceEncoder::load(SentenceEncoder::default_path(), backend);
  if (!encoder) throw std::runtime_error(encoder.error().message);
  return std::move(*encoder);
}

float max_difference(const Embedding& actual, const std::vector<float>& expected) {
  if (expected.size() != actual.size()) return std::numeric_limits<float>::infinity();
  float worst = 0;
  for (int i = 0; i < kDimensions; ++i)
    worst = std::max(worst, std::abs(actual[i] - expected[i]));
  return worst;
}

std::string ids_text(const std::vector<int>& ids) {
  return fmt::format("{}", fmt::join(ids, " "));
}

TEST(EncoderReference, CoversWhatTheIssueAsksFor) {
  const auto& vectors = reference().vectors;
  EXPECT_GE(vectors.size(), 200u);
  EXPECT_GE(reference().tokens.size(), 10000u);
  const auto any = [&](auto predicate) {
    return std::any_of(vectors.begin(), vectors.end(), predicate);
  };
  EXPECT_TRUE(any([](const ReferenceCase& c) { return c.ids.size() > kMaxTokens; }));  // truncated
  EXPECT_TRUE(any([](const ReferenceCase& c) { return c.ids.empty(); }));              // empty text
  EXPECT_TRUE(
      any([](const ReferenceCase& c) { return std::count(c.ids.begin(), c.ids.end(), 0) > 0; }));
  for (const auto& c : vectors)
    ASSERT_EQ(c.vector.size(), static_cast<std::size_t>(kDimensions)) << c.text;
}

TEST(EncoderReference, WeightsComeFromThePinnedPackage) {
  EXPECT_EQ(load_encoder()->source(), reference().source);
}

TEST(EncoderReference, TokenIdsMatchTheJavaScriptTokenizer) {
  const auto encoder = load_encoder();
  int mismatches = 0;
  for (const auto& c : reference().tokens) {
    auto ids = encoder->tokenize(c.text);
    ASSERT_TRUE(ids.ok()) << c.text << ": " << ids.error().message;
    if (*ids != c.ids && ++mismatches <= 5)
      ADD_FAILURE() << "\"" << c.text << "\"\n  JavaScript: " << ids_text(c.ids)
                    << "\n  supportd:   " << ids_text(*ids);
  }
  EXPECT_EQ(mismatches, 0) << "of " << reference().tokens.size() << " texts";
}

class EncoderVectors : public ::testing::TestWithParam<Backend> {};

TEST_P(EncoderVectors, EncodeMatchesTensorFlowJs) {
  const auto encoder = load_encoder(GetParam());
  float worst = 0;
  for (const auto& c : reference().vectors) {
    auto vector = encoder->encode(c.text);
    ASSERT_TRUE(vector.ok()) << c.text;
    const float difference = max_difference(*vector, c.vector);
    EXPECT_LE(difference, kTolerance) << "\"" << c.text << "\"";
    worst = std::max(worst, difference);
  }
  RecordProperty("max_abs_difference", std::to_string(worst));
  std::printf("max |supportd - TensorFlow.js| over %zu texts: %.3g\n", reference().vectors.size(),
              worst);
}

TEST_P(EncoderVectors, EncodeBatchMatchesTensorFlowJs) {
  const auto encoder = load_encoder(GetParam());
  std::vector<std::string> texts;
  for (const auto& c : reference().vectors)
    texts.push_back(c.text);
  auto vectors = encoder->encode_batch(texts, 2);
  ASSERT_TRUE(vectors.ok()) << vectors.error().message;
  ASSERT_EQ(vectors->size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i)
    EXPECT_LE(max_difference((*vectors)[i], reference().vectors[i].vector), kTolerance)
        << "\"" << texts[i] << "\"";
}

TEST_P(EncoderVectors, VectorsAreUnitLength) {
  const auto encoder = load_encoder(GetParam());
  for (std::string text : {"", "my card still isn't here", "☃"}) {
    auto vector = encoder->encode(text);
    ASSERT_TRUE(vector.ok());
    double norm = 0;
    for (float v : *vector)
      norm += double(v) * v;
    EXPECT_NEAR(std::sqrt(norm), 1.0, 1e-5) << text;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, EncoderVectors,
                         ::testing::Values(Backend::kEigen, Backend::kGgml), [](const auto& info) {
                           return info.param == Backend::kEigen ? "Eigen" : "Ggml";
                         });

}  // namespace
}  // namespace supportd::encoder
