// The transformer with Eigen: the tokens of every text in a call are packed into one matrix (a
// row per token), so each linear layer is one matrix product; attention runs per text and head.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>

#include <cmath>
#include <vector>

#include "encoder/transformer.h"

namespace supportd::encoder {
namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Weight = Eigen::Map<const Matrix>;
using Vector = Eigen::Map<const Eigen::RowVectorXf>;

Weight weight(std::span<const float> data, int out, int in) {
  return Weight(data.data(), out, in);
}
Vector vector(std::span<const float> data) {
  return Vector(data.data(), static_cast<Eigen::Index>(data.size()));
}

// y = x W^T + b, with W stored [out][in].
void linear(const Matrix& x, std::span<const float> w, std::span<const float> b, Matrix& y) {
  const int out = static_cast<int>(b.size());
  y.resize(x.rows(), out);
  y.noalias() = x * weight(w, out, static_cast<int>(x.cols())).transpose();
  y.rowwise() += vector(b);
}

// Per row: scale * (x - mean) / sqrt(variance + epsilon) + bias, in the graph's order.
void layer_norm(const Matrix& x, std::span<const float> scale, std::span<const float> bias,
                Matrix& y) {
  y.resize(x.rows(), x.cols());
  const float width = static_cast<float>(x.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const float mean = x.row(r).sum() / width;
    const auto centered = (x.row(r).array() - mean).matrix();
    const float variance = centered.squaredNorm() / width;
    const float inverse = 1.0f / std::sqrt(variance + ModelWeights::kEpsilon);
    y.row(r) = (vector(scale).array() * inverse) * centered.array() + vector(bias).array();
  }
}

class EigenTransformer final : public Transformer {
 public:
  explicit EigenTransformer(const ModelWeights& weights) : w_(weights) {}

  void encode(std::span<const TokenIds> texts, std::span<Embedding> out) const override {
    std::vector<Eigen::Index> offsets{0};
    for (TokenIds ids : texts)
      offsets.push_back(offsets.back() + static_cast<Eigen::Index>(ids.size()));
    const Eigen::Index rows = offsets.back();

    Matrix x(rows, ModelWeights::kEmbedding);
    for (std::size_t t = 0; t < texts.size(); ++t)
      for (std::size_t p = 0; p < texts[t].size(); ++p)
        embed(texts[t][p], static_cast<int>(p), x.row(offsets[t] + p));

    Matrix h, normed, mixed, attended, hidden;
    // Layer 0: the residual is projected from 256 to 512.
    linear(x, w_.layers[0].residual_weight, w_.layers[0].residual_bias, h);
    attention(w_.layers[0], x, offsets, normed, mixed, attended);
    h += attended;
    feed_forward(w_.layers[0], h, normed, hidden, mixed);
    // Layer 1.
    attention(w_.layers[1], h, offsets, normed, mixed, attended);
    h += attended;
    feed_forward(w_.layers[1], h, normed, hidden, mixed);

    Matrix pooled = Matrix::Zero(static_cast<Eigen::Index>(texts.size()), kDimensions);
    for (std::size_t t = 0; t < texts.size(); ++t) {
      const Eigen::Index count = offsets[t + 1] - offsets[t];
      if (count > 0)
        pooled.row(t) = h.middleRows(offsets[t], count).colwise().sum() / static_cast<float>(count);
    }
    Matrix result;
    linear(pooled, w_.output_weight, w_.output_bias, result);
    for (std::size_t t = 0; t < texts.size(); ++t) {
      auto row = result.row(t).array().tanh().matrix().eval();
      const float inverse = 1.0f / std::sqrt(std::max(row.squaredNorm(), 1e-12f));
      Eigen::Map<Eigen::RowVectorXf>(out[t].data(), kDimensions) = row * inverse;
    }
  }

 private:
  // 2 * embedding + timing signal, summed as the graph does: e + (e + signal).
  template <typename Row>
  void embed(int id, int position, Row row) const {
    const float* e =
        w_.embeddings.data() + static_cast<std::ptrdiff_t>(id) * ModelWeights::kEmbedding;
    const int half = ModelWeights::kEmbedding / 2;
    for (int i = 0; i < half; ++i) {
      const float angle = static_cast<float>(position) * w_.inverse_timescales[i];
      row[i] = e[i] + (e[i] + static_cast<float>(std::sin(static_cast<double>(angle))));
      row[half + i] =
          e[half + i] + (e[half + i] + static_cast<float>(std::cos(static_cast<double>(angle))));
    }
  }

  // attended = Wo MultiHead(LN(x)) + bo; every text attends only to its own tokens.
  void attention(const ModelWeights::Layer& layer, const Matrix& x,
                 const std::vector<Eigen::Index>& offsets, Matrix& normed, Matrix& qkv,
                 Matrix& attended) const {
    const int width = layer.width;
    const int head = width / ModelWeights::kHeads;
    const float scale = 1.0f / std::sqrt(static_cast<float>(head));
    layer_norm(x, layer.attention_norm_scale, layer.attention_norm_bias, normed);
    linear(normed, layer.qkv_weight, layer.qkv_bias, qkv);
    Matrix heads(x.rows(), width), scores;
    for (std::size_t t = 0; t + 1 < offsets.size(); ++t) {
      const Eigen::Index begin = offsets[t], count = offsets[t + 1] - offsets[t];
      if (count == 0) continue;
      for (int k = 0; k < ModelWeights::kHeads; ++k) {
        const auto q = qkv.block(begin, k * head, count, head);
        const auto keys = qkv.block(begin, width + k * head, count, head);
        const auto values = qkv.block(begin, 2 * width + k * head, count, head);
        scores.noalias() = (q * scale) * keys.transpose();
        for (Eigen::Index r = 0; r < count; ++r) {
          auto row = scores.row(r).array();
          row = (row - row.maxCoeff()).exp();
          row /= row.sum();
        }
        heads.block(begin, k * head, count, head).noalias() = scores * values;
      }
    }
    linear(heads, layer.output_weight, layer.output_bias, attended);
  }

  // h += W2 relu(W1 LN(h) + b1) + b2.
  void feed_forward(const ModelWeights::Layer& layer, Matrix& h, Matrix& normed, Matrix& hidden,
                    Matrix& scratch) const {
    layer_norm(h, layer.ffn_norm_scale, layer.ffn_norm_bias, normed);
    linear(normed, layer.ffn_up_weight, layer.ffn_up_bias, hidden);
    hidden = hidden.cwiseMax(0.0f);
    linear(hidden, layer.ffn_down_weight, layer.ffn_down_bias, scratch);
    h += scratch;
  }

  const ModelWeights& w_;
};

}  // namespace

std::unique_ptr<Transformer> make_eigen_transformer(const ModelWeights& weights) {
  return std::make_unique<EigenTransformer>(weights);
}

}  // namespace supportd::encoder
