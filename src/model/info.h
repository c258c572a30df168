// `supportd model info`: what a GGUF file holds, read from its header without loading weights.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/status.h"

namespace supportd::model {

struct ModelInfo {
  std::string path;
  std::string name;
  std::string architecture;
  std::string file_type;  // predominant weight type, e.g. "Q8_0"
  std::int64_t parameters = 0;
  std::int64_t bytes = 0;
  int context_length = 0;
  int embedding = 0;
  int layers = 0;
  int heads = 0;
  int kv_heads = 0;
  int vocabulary = 0;
  std::string tokenizer;                             // tokenizer.ggml.model / pre
  std::string chat_template;                         // Jinja source, empty when none
  bool synthetic = false;                            // random weights from `model synth`
  std::map<std::string, std::int64_t> tensor_types;  // type name -> number of tensors
};

Result<ModelInfo> read_model_info(const std::string& path);
std::string format_model_info(const ModelInfo& info);  // for people
std::string model_info_json(const ModelInfo& info);    // for programs

}  // namespace supportd::model
