// The build with src/encoder: sentence vectors from the native Universal Sentence Encoder Lite.
#include <filesystem>

#include "encoder/sentence_encoder.h"
#include "kb/analyze/embedder.h"

namespace supportd::kb {
namespace {

class SentenceEncoderEmbedder final : public Embedder {
 public:
  explicit SentenceEncoderEmbedder(std::unique_ptr<encoder::SentenceEncoder> model)
      : model_(std::move(model)) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(model_->path(), ec);
    fingerprint_ = "sentence-encoder " + model_->source() + " (" +
                   std::filesystem::path(model_->path()).filename().string() + ", " +
                   std::to_string(ec ? 0 : size) + " bytes)";
  }

  int dimensions() const override { return encoder::kDimensions; }
  const std::string& fingerprint() const override { return fingerprint_; }
  bool multilingual() const override { return false; }
  std::uint64_t truncated() const override { return model_->truncated_count(); }

  Result<std::vector<float>> embed(std::string_view text) const override {
    auto vector = model_->encode(text);
    if (!vector) return vector.error();
    return std::vector<float>(vector->begin(), vector->end());
  }

  Result<std::vector<float>> embed_batch(
      std::span<const std::string> texts,
      const std::function<void(std::size_t)>& progress) const override {
    auto vectors = model_->encode_batch(texts);
    if (!vectors) return vectors.error();
    std::vector<float> values;
    values.reserve(vectors->size() * encoder::kDimensions);
    for (const encoder::Embedding& vector : *vectors) {
      values.insert(values.end(), vector.begin(), vector.end());
    }
    if (progress) progress(texts.size());
    return values;
  }

 private:
  std::unique_ptr<encoder::SentenceEncoder> model_;
  std::string fingerprint_;
};

}  // namespace

Result<std::unique_ptr<Embedder>> open_sentence_encoder(const std::string& path) {
  const std::string file = path.empty() ? encoder::SentenceEncoder::default_path() : path;
  auto model = encoder::SentenceEncoder::load(file);
  if (!model) {
    return Error::make(ErrorCode::kUnavailable,
                       "sentence encoder unavailable: " + model.error().message);
  }
  return std::unique_ptr<Embedder>(new SentenceEncoderEmbedder(std::move(*model)));
}

bool sentence_encoder_built() {
  return true;
}

}  // namespace supportd::kb
