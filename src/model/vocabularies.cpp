// The embedded tokenizer GGUFs (vocabularies.S) looked up by name.
#include "model/vocabularies.h"

// Symbols defined by vocabularies.S (generated from vocabularies.S.in by CMake).
extern "C" {
extern const unsigned char supportd_vocab_llama_spm_begin[], supportd_vocab_llama_spm_end[];
extern const unsigned char supportd_vocab_starcoder_begin[], supportd_vocab_starcoder_end[];
extern const unsigned char supportd_vocab_qwen2_begin[], supportd_vocab_qwen2_end[];
}

namespace supportd::model {

std::span<const unsigned char> embedded_vocabulary(std::string_view name) {
  auto span = [](const unsigned char* begin, const unsigned char* end) {
    return std::span<const unsigned char>(begin, static_cast<std::size_t>(end - begin));
  };
  if (name == "llama-spm")
    return span(supportd_vocab_llama_spm_begin, supportd_vocab_llama_spm_end);
  if (name == "starcoder")
    return span(supportd_vocab_starcoder_begin, supportd_vocab_starcoder_end);
  if (name == "qwen2") return span(supportd_vocab_qwen2_begin, supportd_vocab_qwen2_end);
  return {};
}

}  // namespace supportd::model
