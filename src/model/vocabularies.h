// Real tokenizers, embedded in the binary: the vocab-only GGUFs that ship in llama.cpp's
// source tree (models/ggml-vocab-*.gguf), so synthesized models need no files at run time.
#pragma once

#include <span>
#include <string_view>

namespace supportd::model {

// The GGUF bytes of an embedded vocabulary ("llama-spm", "starcoder", "qwen2"), or empty.
std::span<const unsigned char> embedded_vocabulary(std::string_view name);

}  // namespace supportd::model
