// `supportd model info`: a GGUF's metadata read with gguf's reader (no tensors loaded, see
// gguf_header.h) with llama.cpp's log captured for its errors, as text or JSON.
#include "model/info.h"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "engine/llama/model.h"
#include "model/gguf_header.h"

namespace supportd::model {

Result<ModelInfo> read_model_info(const std::string& path) {
  engine::llama::install_llama_log();
  return read_gguf_header(path, engine::llama::last_llama_error);
}

std::string format_model_info(const ModelInfo& i) {
  std::string tensors;
  for (const auto& [type, n] : i.tensor_types)
    tensors += fmt::format("{}{} x{}", tensors.empty() ? "" : ", ", type, n);
  std::string tmpl = i.chat_template.empty() ? "(none)" : i.chat_template.substr(0, 120);
  if (i.chat_template.size() > 120) tmpl += "...";
  for (char& c : tmpl) {
    if (c == '\n') c = ' ';
  }
  return fmt::format(
      "file            {}\n"
      "name            {}\n"
      "architecture    {}\n"
      "parameters      {:.1f}M\n"
      "size            {:.1f} MiB\n"
      "type            {} (tensors: {})\n"
      "context length  {}\n"
      "shape           {} layers, {} wide, {} heads, {} KV heads\n"
      "vocabulary      {} tokens, {}\n"
      "chat template   {}\n"
      "weights         {}\n",
      i.path, i.name, i.architecture, i.parameters / 1e6, i.bytes / 1048576.0, i.file_type, tensors,
      i.context_length, i.layers, i.embedding, i.heads, i.kv_heads, i.vocabulary, i.tokenizer, tmpl,
      i.synthetic ? "random (synthesized by supportd): generated text is meaningless" : "trained");
}

std::string model_info_json(const ModelInfo& i) {
  boost::json::object types;
  for (const auto& [type, n] : i.tensor_types)
    types[type] = n;
  boost::json::object o{{"path", i.path},
                        {"name", i.name},
                        {"architecture", i.architecture},
                        {"parameters", i.parameters},
                        {"bytes", i.bytes},
                        {"type", i.file_type},
                        {"context_length", i.context_length},
                        {"embedding", i.embedding},
                        {"layers", i.layers},
                        {"heads", i.heads},
                        {"kv_heads", i.kv_heads},
                        {"vocabulary", i.vocabulary},
                        {"tokenizer", i.tokenizer},
                        {"chat_template", i.chat_template},
                        {"synthetic", i.synthetic},
                        {"tensor_types", types}};
  return boost::json::serialize(o);
}

}  // namespace supportd::model
