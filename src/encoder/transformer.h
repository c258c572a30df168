// The encoder's network, token ids in, unit vectors out. Two implementations compute the same
// function (Eigen and ggml; bench/encoder-latency compares them). The graph it reproduces, read
// from the package's model.json:
//   x = 2 * embedding[id] + [sin(p * f), cos(p * f)]    p = position, f = 128 inverse timescales
//   layer 0 (256-d in): h = Wr x + a(LN(x)), a = 4-head attention (head 64), projected to 512
//   layer 1 (512-d):    h = h + a(LN(h)), 4 heads of 128
//   each layer then:    h = h + W2 relu(W1 LN(h))     512 -> 1536 -> 512
//   out = normalize(tanh(Wo mean(h) + bo))             mean over the tokens; zero when none
// LayerNorm epsilon 1e-6; no final LayerNorm. Thread-safety: encode() may run on any number of
// threads at once; each call is single-threaded.
#pragma once

#include <array>
#include <memory>
#include <span>

#include "core/status.h"
#include "encoder/sentence_encoder.h"

namespace supportd::encoder {

class WeightFile;

// The weight file's tensors, by role, shapes checked. Linear weights are [out][in], row-major.
struct ModelWeights {
  struct Layer {
    std::span<const float> attention_norm_scale, attention_norm_bias;
    std::span<const float> qkv_weight, qkv_bias;            // [3 * width][width]
    std::span<const float> output_weight, output_bias;      // [512][width]
    std::span<const float> residual_weight, residual_bias;  // layer 0 only: [512][256]
    std::span<const float> ffn_norm_scale, ffn_norm_bias;
    std::span<const float> ffn_up_weight, ffn_up_bias;      // [1536][512]
    std::span<const float> ffn_down_weight, ffn_down_bias;  // [512][1536]
    int width = 0;                                          // 256, then 512
  };
  static constexpr int kVocabulary = 8002;
  static constexpr int kEmbedding = 256;
  static constexpr int kHeads = 4;
  static constexpr int kHidden = 1536;
  static constexpr float kEpsilon = 1e-6f;

  std::span<const float> embeddings;          // [8002][256]
  std::span<const float> inverse_timescales;  // [128]
  std::array<Layer, 2> layers;
  std::span<const float> output_weight, output_bias;  // [512][512]

  // kCorrupt naming the file when a tensor is missing or has another shape.
  static Result<ModelWeights> bind(const WeightFile& file);
};

// Token ids of one text, at most kMaxTokens, each in [0, kVocabulary).
using TokenIds = std::span<const int>;

class Transformer {
 public:
  virtual ~Transformer() = default;
  // Writes the vector of texts[i] to out[i]. REQUIRES: out.size() == texts.size().
  virtual void encode(std::span<const TokenIds> texts, std::span<Embedding> out) const = 0;
};

// REQUIRES: `weights` outlive the transformer (they point into the mapped file).
std::unique_ptr<Transformer> make_eigen_transformer(const ModelWeights& weights);
std::unique_ptr<Transformer> make_ggml_transformer(const ModelWeights& weights);

}  // namespace supportd::encoder
