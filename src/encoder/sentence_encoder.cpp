// SentenceEncoder: loading the weight file, tokenizer and transformer (Eigen or ggml), and
// text to a 512-d unit vector, one text or a batch over threads.
#include "encoder/sentence_encoder.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "core/utf8.h"
#include "encoder/tokenizer.h"
#include "encoder/transformer.h"
#include "encoder/weight_file.h"

namespace supportd::encoder {
namespace {

// Keyed by package version and file format; scripts/fetch-encoder.sh writes this name.
constexpr const char* kWeightFileName = "model-embeddings-en-0.2.0.format1.bin";
// A batch is cut into chunks of at most this many texts and tokens: large enough for efficient
// matrix products, small enough to keep the activations of a chunk in a few megabytes.
constexpr std::size_t kChunkTexts = 32;
constexpr std::size_t kChunkTokens = 1024;

constexpr Backend kFastest = Backend::kEigen;  // bench/encoder-latency, docs/performance.md

Error invalid_utf8(std::string_view text, const std::string& which) {
  return Error::invalid(which + " is not valid UTF-8 (first bad byte at offset " +
                            std::to_string(first_invalid_utf8(text)) + ")",
                        "text");
}

}  // namespace

SentenceEncoder::SentenceEncoder(std::string path, Backend backend)
    : path_(std::move(path)), backend_(backend) {}

SentenceEncoder::~SentenceEncoder() = default;

Result<std::unique_ptr<SentenceEncoder>> SentenceEncoder::load(const std::string& path) {
  return load(path, Backend::kDefault);
}

Result<std::unique_ptr<SentenceEncoder>> SentenceEncoder::load(const std::string& path,
                                                               Backend backend) {
  if (backend == Backend::kDefault) backend = kFastest;
  std::unique_ptr<SentenceEncoder> encoder(new SentenceEncoder(path, backend));
  auto weights = WeightFile::open(path);
  if (!weights) return weights.error();
  encoder->weights_ = std::move(*weights);
  auto model = ModelWeights::bind(*encoder->weights_);
  if (!model) return model.error();
  encoder->model_ = std::make_unique<ModelWeights>(*model);
  auto tokenizer = Tokenizer::create(*encoder->weights_);
  if (!tokenizer) return tokenizer.error();
  encoder->tokenizer_ = std::move(*tokenizer);
  encoder->transformer_ = backend == Backend::kGgml ? make_ggml_transformer(*encoder->model_)
                                                    : make_eigen_transformer(*encoder->model_);
  return encoder;
}

std::string SentenceEncoder::default_path() {
  if (const char* path = std::getenv("SUPPORTD_ENCODER"); path && *path) return path;
  std::string cache;
  if (const char* dir = std::getenv("SUPPORTD_CACHE"); dir && *dir) {
    cache = dir;
  } else {
    const char* home = std::getenv("HOME");
    if (!home || !*home) {
      const passwd* user = ::getpwuid(::getuid());
      home = user ? user->pw_dir : "/tmp";
    }
    cache = std::string(home) + "/.cache/supportd";
  }
  return cache + "/encoder/" + kWeightFileName;
}

const std::string& SentenceEncoder::source() const {
  return weights_->source();
}

std::uint64_t SentenceEncoder::truncated_count() const {
  return truncated_.load(std::memory_order_relaxed);
}

Result<std::vector<int>> SentenceEncoder::tokenize(std::string_view text) const {
  if (!is_valid_utf8(text)) return invalid_utf8(text, "the text");
  return tokenizer_->encode(text);
}

std::vector<int> SentenceEncoder::model_input(std::string_view text) const {
  std::vector<int> ids = tokenizer_->encode(text);
  if (ids.size() > static_cast<std::size_t>(kMaxTokens)) {
    ids.resize(kMaxTokens);
    truncated_.fetch_add(1, std::memory_order_relaxed);
  }
  return ids;
}

Result<Embedding> SentenceEncoder::encode(std::string_view text) const {
  if (!is_valid_utf8(text)) return invalid_utf8(text, "the text");
  const std::vector<int> ids = model_input(text);
  const TokenIds input[1] = {ids};
  Embedding out[1];
  transformer_->encode(input, out);
  return out[0];
}

Result<std::vector<Embedding>> SentenceEncoder::encode_batch(std::span<const std::string> texts,
                                                             int threads) const {
  for (std::size_t i = 0; i < texts.size(); ++i)
    if (!is_valid_utf8(texts[i])) return invalid_utf8(texts[i], "text " + std::to_string(i));
  std::vector<Embedding> out(texts.size());
  if (texts.empty()) return out;

  // Tokenize on the worker threads too, chunk by chunk; a worker takes the next chunk when done.
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t workers =
      std::min<std::size_t>(threads > 0 ? static_cast<std::size_t>(threads) : cores, texts.size());
  const std::size_t chunk = std::min(kChunkTexts, (texts.size() + workers - 1) / workers);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    std::vector<std::vector<int>> ids;
    std::vector<TokenIds> inputs;
    for (;;) {
      const std::size_t begin = next.fetch_add(chunk);
      if (begin >= texts.size()) return;
      const std::size_t end = std::min(texts.size(), begin + chunk);
      ids.clear();
      for (std::size_t i = begin; i < end; ++i)
        ids.push_back(model_input(texts[i]));
      // Within the chunk, pass at most kChunkTokens tokens to one transformer call.
      for (std::size_t first = 0; first < ids.size();) {
        std::size_t last = first, tokens = 0;
        inputs.clear();
        do {
          tokens += ids[last].size();
          inputs.push_back(ids[last++]);
        } while (last < ids.size() && tokens + ids[last].size() <= kChunkTokens);
        transformer_->encode(inputs,
                             std::span<Embedding>(out).subspan(begin + first, last - first));
        first = last;
      }
    }
  };
  std::vector<std::jthread> pool;
  for (std::size_t i = 1; i < workers; ++i)
    pool.emplace_back(work);
  work();
  pool.clear();  // joins: every chunk is written before `out` moves into the result
  return out;
}

}  // namespace supportd::encoder
