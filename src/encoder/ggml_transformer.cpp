// The transformer as a ggml compute graph: the tokens of every text in a call are packed into
// one tensor (a column per token), so each linear layer is one matrix product; attention runs
// per text on views. Weights are ggml tensors over the mapped file (no copy); intermediate
// tensors share memory by liveness (ggml-alloc). Single-threaded per call.
#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "encoder/transformer.h"

namespace supportd::encoder {
namespace {

struct GgmlLayer {
  ggml_tensor *attention_norm_scale, *attention_norm_bias, *qkv_weight, *qkv_bias;
  ggml_tensor *output_weight, *output_bias, *residual_weight = nullptr, *residual_bias = nullptr;
  ggml_tensor *ffn_norm_scale, *ffn_norm_bias, *ffn_up_weight, *ffn_up_bias, *ffn_down_weight,
      *ffn_down_bias;
  int width;
};

class GgmlTransformer final : public Transformer {
 public:
  explicit GgmlTransformer(const ModelWeights& w) : w_(w) {
    ggml_init_params params{64 * ggml_tensor_overhead(), nullptr, true};
    weights_ = ggml_init(params);
    embeddings_ = wrap(w.embeddings, ModelWeights::kEmbedding, ModelWeights::kVocabulary);
    for (int i = 0; i < 2; ++i) {
      const ModelWeights::Layer& from = w.layers[i];
      GgmlLayer& to = layers_[i];
      to.width = from.width;
      to.attention_norm_scale = wrap(from.attention_norm_scale, from.width);
      to.attention_norm_bias = wrap(from.attention_norm_bias, from.width);
      to.qkv_weight = wrap(from.qkv_weight, from.width, 3 * from.width);
      to.qkv_bias = wrap(from.qkv_bias, 3 * from.width);
      to.output_weight = wrap(from.output_weight, from.width, kDimensions);
      to.output_bias = wrap(from.output_bias, kDimensions);
      if (i == 0) {
        to.residual_weight = wrap(from.residual_weight, from.width, kDimensions);
        to.residual_bias = wrap(from.residual_bias, kDimensions);
      }
      to.ffn_norm_scale = wrap(from.ffn_norm_scale, kDimensions);
      to.ffn_norm_bias = wrap(from.ffn_norm_bias, kDimensions);
      to.ffn_up_weight = wrap(from.ffn_up_weight, kDimensions, ModelWeights::kHidden);
      to.ffn_up_bias = wrap(from.ffn_up_bias, ModelWeights::kHidden);
      to.ffn_down_weight = wrap(from.ffn_down_weight, ModelWeights::kHidden, kDimensions);
      to.ffn_down_bias = wrap(from.ffn_down_bias, kDimensions);
    }
    output_weight_ = wrap(w.output_weight, kDimensions, kDimensions);
    output_bias_ = wrap(w.output_bias, kDimensions);
  }
  ~GgmlTransformer() override { ggml_free(weights_); }

  void encode(std::span<const TokenIds> texts, std::span<Embedding> out) const override {
    std::vector<std::int64_t> offsets{0};
    for (TokenIds ids : texts)
      offsets.push_back(offsets.back() + static_cast<std::int64_t>(ids.size()));
    const std::int64_t rows = offsets.back();
    const auto count = static_cast<std::int64_t>(texts.size());
    std::vector<float> result(static_cast<std::size_t>(count) * kDimensions);
    if (rows == 0) {  // no tokens at all: every vector is tanh(bias)
      for (std::int64_t t = 0; t < count; ++t)
        for (int i = 0; i < kDimensions; ++i)
          result[t * kDimensions + i] = std::tanh(w_.output_bias[i]);
    } else {
      compute(texts, offsets, result);
    }
    for (std::int64_t t = 0; t < count; ++t) {
      const float* row = result.data() + t * kDimensions;
      float sum = 0;
      for (int i = 0; i < kDimensions; ++i)
        sum += row[i] * row[i];
      const float inverse = 1.0f / std::sqrt(std::max(sum, 1e-12f));
      for (int i = 0; i < kDimensions; ++i)
        out[t][i] = row[i] * inverse;
    }
  }

 private:
  ggml_tensor* wrap(std::span<const float> data, std::int64_t ne0, std::int64_t ne1 = 1) {
    ggml_tensor* t = ne1 == 1 ? ggml_new_tensor_1d(weights_, GGML_TYPE_F32, ne0)
                              : ggml_new_tensor_2d(weights_, GGML_TYPE_F32, ne0, ne1);
    t->data = const_cast<float*>(data.data());  // read-only: no op writes to a weight
    return t;
  }

  static ggml_tensor* norm(ggml_context* ctx, ggml_tensor* x, ggml_tensor* scale,
                           ggml_tensor* bias) {
    return ggml_add(ctx, ggml_mul(ctx, ggml_norm(ctx, x, ModelWeights::kEpsilon), scale), bias);
  }
  static ggml_tensor* linear(ggml_context* ctx, ggml_tensor* x, ggml_tensor* weight,
                             ggml_tensor* bias) {
    return ggml_add(ctx, ggml_mul_mat(ctx, weight, x), bias);
  }

  // Wo MultiHead(LN(x)) + bo, each text attending to its own tokens only.
  ggml_tensor* attention(ggml_context* ctx, ggml_cgraph* graph, const GgmlLayer& layer,
                         ggml_tensor* x, const std::vector<std::int64_t>& offsets) const {
    const int width = layer.width, head = width / ModelWeights::kHeads;
    ggml_tensor* qkv =
        linear(ctx, norm(ctx, x, layer.attention_norm_scale, layer.attention_norm_bias),
               layer.qkv_weight, layer.qkv_bias);
    ggml_tensor* heads = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, width, x->ne[1]);
    const float scale = 1.0f / std::sqrt(static_cast<float>(head));
    const std::size_t f = sizeof(float);
    for (std::size_t t = 0; t + 1 < offsets.size(); ++t) {
      const std::int64_t begin = offsets[t], length = offsets[t + 1] - offsets[t];
      if (length == 0) continue;
      const auto part = [&](int which) {  // [head, length, heads] view of q, k or v
        return ggml_view_3d(ctx, qkv, head, length, ModelWeights::kHeads, qkv->nb[1], head * f,
                            begin * qkv->nb[1] + which * width * f);
      };
      ggml_tensor* weights =
          ggml_soft_max_ext(ctx, ggml_mul_mat(ctx, part(1), part(0)), nullptr, scale, 0.0f);
      ggml_tensor* values = ggml_cont(ctx, ggml_permute(ctx, part(2), 1, 0, 2, 3));
      ggml_tensor* mixed = ggml_permute(ctx, ggml_mul_mat(ctx, values, weights), 0, 2, 1, 3);
      ggml_tensor* into = ggml_view_3d(ctx, heads, head, ModelWeights::kHeads, length, head * f,
                                       heads->nb[1], begin * heads->nb[1]);
      ggml_build_forward_expand(graph, ggml_cpy(ctx, mixed, into));
    }
    return linear(ctx, heads, layer.output_weight, layer.output_bias);
  }

  static ggml_tensor* feed_forward(ggml_context* ctx, const GgmlLayer& layer, ggml_tensor* h) {
    ggml_tensor* up =
        ggml_relu(ctx, linear(ctx, norm(ctx, h, layer.ffn_norm_scale, layer.ffn_norm_bias),
                              layer.ffn_up_weight, layer.ffn_up_bias));
    return ggml_add(ctx, h, linear(ctx, up, layer.ffn_down_weight, layer.ffn_down_bias));
  }

  void compute(std::span<const TokenIds> texts, const std::vector<std::int64_t>& offsets,
               std::vector<float>& result) const {
    const std::int64_t rows = offsets.back();
    const auto count = static_cast<std::int64_t>(texts.size());
    const std::size_t nodes = 128 + 32 * texts.size();  // about 11 per text and layer
    ggml_init_params params{
        nodes * 2 * ggml_tensor_overhead() + ggml_graph_overhead_custom(nodes, false), nullptr,
        true};
    ggml_context* ctx = ggml_init(params);
    ggml_cgraph* graph = ggml_new_graph_custom(ctx, nodes, false);

    ggml_tensor* ids = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, rows);
    ggml_tensor* timing = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, ModelWeights::kEmbedding, rows);
    ggml_tensor* pooling = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, rows, count);
    for (ggml_tensor* input : {ids, timing, pooling})
      ggml_set_input(input);

    ggml_tensor* e = ggml_get_rows(ctx, embeddings_, ids);
    ggml_tensor* x = ggml_add(ctx, e, ggml_add(ctx, e, timing));  // e + (e + signal), as the graph
    ggml_tensor* h = linear(ctx, x, layers_[0].residual_weight, layers_[0].residual_bias);
    h = ggml_add(ctx, attention(ctx, graph, layers_[0], x, offsets), h);
    h = feed_forward(ctx, layers_[0], h);
    h = ggml_add(ctx, attention(ctx, graph, layers_[1], h, offsets), h);
    h = feed_forward(ctx, layers_[1], h);
    ggml_tensor* pooled = ggml_mul_mat(ctx, ggml_cont(ctx, ggml_transpose(ctx, h)), pooling);
    ggml_tensor* output = ggml_tanh(ctx, linear(ctx, pooled, output_weight_, output_bias_));
    ggml_set_output(output);
    ggml_build_forward_expand(graph, output);

    ggml_gallocr_t allocator = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    ggml_gallocr_alloc_graph(allocator, graph);
    auto* id_data = static_cast<std::int32_t*>(ids->data);
    auto* signal = static_cast<float*>(timing->data);
    auto* weights = static_cast<float*>(pooling->data);
    std::memset(weights, 0, ggml_nbytes(pooling));
    const int half = ModelWeights::kEmbedding / 2;
    for (std::size_t t = 0; t < texts.size(); ++t) {
      for (std::size_t p = 0; p < texts[t].size(); ++p) {
        const std::int64_t row = offsets[t] + static_cast<std::int64_t>(p);
        id_data[row] = texts[t][p];
        for (int i = 0; i < half; ++i) {
          const float angle = static_cast<float>(p) * w_.inverse_timescales[i];
          signal[row * ModelWeights::kEmbedding + i] =
              static_cast<float>(std::sin(static_cast<double>(angle)));
          signal[row * ModelWeights::kEmbedding + half + i] =
              static_cast<float>(std::cos(static_cast<double>(angle)));
        }
        weights[static_cast<std::int64_t>(t) * rows + row] =
            1.0f / static_cast<float>(texts[t].size());
      }
    }
    ggml_cplan plan = ggml_graph_plan(graph, 1, nullptr);
    std::vector<std::uint8_t> work(plan.work_size);
    plan.work_data = work.data();
    ggml_graph_compute(graph, &plan);
    std::memcpy(result.data(), output->data, result.size() * sizeof(float));
    ggml_gallocr_free(allocator);
    ggml_free(ctx);
  }

  const ModelWeights& w_;
  ggml_context* weights_ = nullptr;
  ggml_tensor* embeddings_ = nullptr;
  GgmlLayer layers_[2];
  ggml_tensor *output_weight_ = nullptr, *output_bias_ = nullptr;
};

}  // namespace

std::unique_ptr<Transformer> make_ggml_transformer(const ModelWeights& weights) {
  return std::make_unique<GgmlTransformer>(weights);
}

}  // namespace supportd::encoder
