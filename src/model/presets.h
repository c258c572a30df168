// Architecture presets for synthesized models: the real shapes of published models (layer
// counts, widths, heads, vocabularies), so that a random-weight copy costs what the real one
// costs to run.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace supportd::model {

struct Preset {
  std::string name;          // e.g. "qwen2.5-0.5b"
  std::string architecture;  // GGUF general.architecture: "llama", "qwen2"
  std::string vocabulary;    // embedded tokenizer: "llama-spm", "starcoder", "qwen2"
  std::string shape_of;      // the published model whose shape this is
  int embedding = 0;
  int layers = 0;
  int heads = 0;
  int kv_heads = 0;
  int feed_forward = 0;
  int context = 0;
  float rope_base = 10000.0f;
  float rms_epsilon = 1e-5f;
  bool qkv_bias = false;
};

const std::vector<Preset>& presets();
const Preset* find_preset(std::string_view name);
std::string preset_names();  // "tiny, smollm2-135m, qwen2.5-0.5b"

}  // namespace supportd::model
