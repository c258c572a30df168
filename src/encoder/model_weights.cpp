// ModelWeights::bind(): the transformer's tensors found in the weight file by name and
// checked against the shapes the model needs; the first missing or misshapen one is the error.
#include <string>

#include "encoder/transformer.h"
#include "encoder/weight_file.h"

namespace supportd::encoder {

Result<ModelWeights> ModelWeights::bind(const WeightFile& file) {
  ModelWeights w;
  Error failure;
  bool failed = false;
  const auto get = [&](const std::string& name, std::vector<std::int64_t> shape) {
    auto view = file.tensor(name, std::move(shape));
    if (!view) {
      if (!failed) failure = view.error();
      failed = true;
      return std::span<const float>();
    }
    return view->data;
  };
  w.embeddings = get("embeddings", {kVocabulary, kEmbedding});
  w.inverse_timescales = get("timing.inverse_timescales", {kEmbedding / 2});
  for (int index = 0; index < 2; ++index) {
    Layer& layer = w.layers[index];
    const std::int64_t width = index == 0 ? kEmbedding : kDimensions;
    const std::string p = "layer" + std::to_string(index) + ".";
    layer.width = static_cast<int>(width);
    layer.attention_norm_scale = get(p + "attention_norm.scale", {width});
    layer.attention_norm_bias = get(p + "attention_norm.bias", {width});
    layer.qkv_weight = get(p + "qkv.weight", {3 * width, width});
    layer.qkv_bias = get(p + "qkv.bias", {3 * width});
    layer.output_weight = get(p + "output.weight", {kDimensions, width});
    layer.output_bias = get(p + "output.bias", {kDimensions});
    if (index == 0) {
      layer.residual_weight = get(p + "residual.weight", {kDimensions, kEmbedding});
      layer.residual_bias = get(p + "residual.bias", {kDimensions});
    }
    layer.ffn_norm_scale = get(p + "ffn_norm.scale", {kDimensions});
    layer.ffn_norm_bias = get(p + "ffn_norm.bias", {kDimensions});
    layer.ffn_up_weight = get(p + "ffn_up.weight", {kHidden, kDimensions});
    layer.ffn_up_bias = get(p + "ffn_up.bias", {kHidden});
    layer.ffn_down_weight = get(p + "ffn_down.weight", {kDimensions, kHidden});
    layer.ffn_down_bias = get(p + "ffn_down.bias", {kDimensions});
  }
  w.output_weight = get("output.weight", {kDimensions, kDimensions});
  w.output_bias = get("output.bias", {kDimensions});
  if (failed) return failure;
  return w;
}

}  // namespace supportd::encoder
