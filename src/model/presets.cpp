// The table of architecture presets and lookups by name.
#include "model/presets.h"

namespace supportd::model {

const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = {
      {"tiny", "llama", "llama-spm", "none (a few MB, for tests)", 64, 2, 4, 2, 192, 131072,
       10000.0f, 1e-5f, false},
      {"tiny-qwen2", "qwen2", "qwen2", "none (qwen2 tokenizer, ~10 MB, for tests)", 64, 2, 4, 2,
       192, 4096, 1000000.0f, 1e-6f, true},
      {"tiny-wide-heads", "llama", "llama-spm",
       "none (tiny with heads of 32 numbers, as quantized KV caches need; for tests)", 64, 2, 2, 1,
       192, 131072, 10000.0f, 1e-5f, false},
      {"smollm2-135m", "llama", "starcoder", "HuggingFaceTB/SmolLM2-135M-Instruct", 576, 30, 9, 3,
       1536, 8192, 100000.0f, 1e-5f, false},
      {"qwen2.5-0.5b", "qwen2", "qwen2", "Qwen/Qwen2.5-0.5B-Instruct", 896, 24, 14, 2, 4864, 32768,
       1000000.0f, 1e-6f, true},
      {"qwen2.5-1.5b", "qwen2", "qwen2", "Qwen/Qwen2.5-1.5B-Instruct", 1536, 28, 12, 2, 8960, 32768,
       1000000.0f, 1e-6f, true},
  };
  return table;
}

const Preset* find_preset(std::string_view name) {
  for (const auto& p : presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::string preset_names() {
  std::string names;
  for (const auto& p : presets())
    names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

}  // namespace supportd::model
