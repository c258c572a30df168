#include "model/quantize.h"

#include <algorithm>
#include <filesystem>
#include <thread>

#include "engine/llama/model.h"
#include "gguf.h"
#include "llama.h"

namespace supportd::model {

const char* quant_type_names() {
  return "f16, q8_0, q4_0, q4_k_m";
}

Result<int> parse_quant_type(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (lower == "f16") return static_cast<int>(LLAMA_FTYPE_MOSTLY_F16);
  if (lower == "q8_0") return static_cast<int>(LLAMA_FTYPE_MOSTLY_Q8_0);
  if (lower == "q4_0") return static_cast<int>(LLAMA_FTYPE_MOSTLY_Q4_0);
  if (lower == "q4_k_m") return static_cast<int>(LLAMA_FTYPE_MOSTLY_Q4_K_M);
  return Error::invalid("unknown type '" + name + "' (known: " + quant_type_names() + ")", "type");
}

Status quantize(const std::string& in, const std::string& out, const std::string& type) {
  engine::llama::install_llama_log();
  const auto ftype = parse_quant_type(type);
  if (!ftype) return ftype.error();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(in, ec)) {
    return Error::make(ErrorCode::kNotFound, "model file not found: " + in);
  }
  gguf_init_params probe{/*no_alloc=*/true, /*ctx=*/nullptr};
  gguf_context* gguf = gguf_init_from_file(in.c_str(), probe);
  if (gguf == nullptr) {
    return Error::make(ErrorCode::kCorrupt,
                       in + " is not a readable GGUF file: " + engine::llama::last_llama_error());
  }
  gguf_free(gguf);
  llama_model_quantize_params params = llama_model_quantize_default_params();
  params.ftype = static_cast<llama_ftype>(*ftype);
  params.nthread = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (llama_model_quantize(in.c_str(), out.c_str(), &params) != 0) {
    std::filesystem::remove(out, ec);
    return Error::make(ErrorCode::kCorrupt,
                       "cannot quantize " + in + ": " + engine::llama::last_llama_error());
  }
  return {};
}

}  // namespace supportd::model
