// Sentence vectors from an embedding model in GGUF (llama.cpp): the question's tokens are run
// through the model with pooling (the model's own, else the mean), and the result normalized.
// One llama.cpp context, used by one caller at a time.
#include <llama.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <mutex>

#include "engine/llama/model.h"
#include "kb/analyze/embedder.h"

namespace supportd::kb {
namespace {

constexpr std::uint32_t kContextTokens = 512;

class GgufEmbedder final : public Embedder {
 public:
  GgufEmbedder(llama_model* model, llama_context* context, std::string fingerprint)
      : model_(model), context_(context), fingerprint_(std::move(fingerprint)) {
    dimensions_ = llama_model_n_embd_out(model_);
    if (dimensions_ <= 0) dimensions_ = llama_model_n_embd(model_);
  }
  ~GgufEmbedder() override {
    llama_free(context_);
    llama_model_free(model_);
  }

  int dimensions() const override { return dimensions_; }
  const std::string& fingerprint() const override { return fingerprint_; }
  bool multilingual() const override { return true; }
  std::uint64_t truncated() const override { return truncated_.load(std::memory_order_relaxed); }

  Result<std::vector<float>> embed(std::string_view text) const override {
    const llama_vocab* vocab = llama_model_get_vocab(model_);
    std::vector<llama_token> tokens(text.size() + 8);
    int count = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                               static_cast<int32_t>(tokens.size()), true, false);
    if (count < 0) {
      tokens.resize(static_cast<std::size_t>(-count));
      count = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                             static_cast<int32_t>(tokens.size()), true, false);
    }
    if (count <= 0) return Error::invalid("the text has no tokens for the embedding model");
    if (static_cast<std::size_t>(count) > kContextTokens)
      truncated_.fetch_add(1, std::memory_order_relaxed);
    tokens.resize(std::min<std::size_t>(static_cast<std::size_t>(count), kContextTokens));
    std::lock_guard lock(mutex_);
    llama_memory_clear(llama_get_memory(context_), true);
    llama_batch batch = llama_batch_get_one(tokens.data(), static_cast<int32_t>(tokens.size()));
    const bool encoder_only = llama_model_has_encoder(model_) && !llama_model_has_decoder(model_);
    const int32_t status =
        encoder_only ? llama_encode(context_, batch) : llama_decode(context_, batch);
    if (status != 0) {
      return Error::make(ErrorCode::kInternal,
                         "the embedding model failed (" + engine::llama::last_llama_error() + ")");
    }
    const float* pooled = llama_get_embeddings_seq(context_, 0);
    if (pooled == nullptr) {
      return Error::make(ErrorCode::kInternal, "the embedding model returned no pooled vector");
    }
    std::vector<float> vector(pooled, pooled + dimensions_);
    double norm = 0;
    for (float value : vector)
      norm += static_cast<double>(value) * value;
    norm = std::sqrt(norm);
    if (norm > 0) {
      for (float& value : vector)
        value = static_cast<float>(value / norm);
    }
    return vector;
  }

  Result<std::vector<float>> embed_batch(
      std::span<const std::string> texts,
      const std::function<void(std::size_t)>& progress) const override {
    std::vector<float> values;
    values.reserve(texts.size() * static_cast<std::size_t>(dimensions_));
    for (std::size_t i = 0; i < texts.size(); ++i) {
      auto vector = embed(texts[i]);
      if (!vector) return vector.error();
      values.insert(values.end(), vector->begin(), vector->end());
      if (progress) progress(i + 1);
    }
    return values;
  }

 private:
  llama_model* model_;
  llama_context* context_;
  std::string fingerprint_;
  int dimensions_ = 0;
  mutable std::mutex mutex_;  // a llama.cpp context serves one caller at a time
  mutable std::atomic<std::uint64_t> truncated_{0};
};

}  // namespace

Result<std::unique_ptr<Embedder>> open_gguf_embedder(const std::string& path, int threads) {
  engine::llama::install_llama_log();
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error::make(ErrorCode::kUnavailable, path + ": cannot read the embedding model");
  llama_model_params model_params = llama_model_default_params();
  model_params.n_gpu_layers = 0;
  llama_model* model = llama_model_load_from_file(path.c_str(), model_params);
  if (model == nullptr) {
    return Error::make(ErrorCode::kUnavailable, path + ": cannot load the embedding model (" +
                                                    engine::llama::last_llama_error() + ")");
  }
  const auto open_context = [&](enum llama_pooling_type pooling) {
    llama_context_params params = llama_context_default_params();
    params.embeddings = true;
    params.pooling_type = pooling;
    params.n_ctx = kContextTokens;
    params.n_batch = kContextTokens;
    params.n_ubatch = kContextTokens;
    params.n_seq_max = 1;
    params.n_threads = threads;
    params.n_threads_batch = threads;
    return llama_init_from_model(model, params);
  };
  llama_context* context = open_context(LLAMA_POOLING_TYPE_UNSPECIFIED);
  if (context != nullptr && llama_pooling_type(context) == LLAMA_POOLING_TYPE_NONE) {
    llama_free(context);  // a generative model: average its last hidden states
    context = open_context(LLAMA_POOLING_TYPE_MEAN);
  }
  if (context == nullptr) {
    llama_model_free(model);
    return Error::make(ErrorCode::kUnavailable, path + ": cannot create an embedding context (" +
                                                    engine::llama::last_llama_error() + ")");
  }
  const std::string fingerprint = "gguf " + std::filesystem::path(path).filename().string() + " (" +
                                  std::to_string(size) + " bytes)";
  return std::unique_ptr<Embedder>(new GgufEmbedder(model, context, fingerprint));
}

}  // namespace supportd::kb
