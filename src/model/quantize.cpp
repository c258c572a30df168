// `supportd model quantize`: the type names supportd accepts mapped to llama.cpp's, then
// llama_model_quantize writing through a temporary file.
#include "model/quantize.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "core/same_file.h"
#include "core/temp_file.h"
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
  namespace fs = std::filesystem;
  if (same_file(in, out)) {
    return Error::invalid("the output " + out + " is the input file: name another output", "out");
  }
  if (fs::is_directory(out, ec)) return Error::invalid("the output " + out + " is a directory");
  const fs::path directory = fs::absolute(out, ec).parent_path();
  if (!fs::is_directory(directory, ec)) {
    return Error::make(ErrorCode::kNotFound,
                       "cannot write " + out + ": no directory " + directory.string());
  }
  // Written beside the output and renamed onto it: an existing output survives a failure and
  // nobody sees a half-written file.
  TempFile partial(directory.string(), "quantize");
  if (!partial.ok()) {
    return Error::make(ErrorCode::kIo, "cannot write " + out + ": cannot create a file in " +
                                           directory.string() + ": " + std::strerror(errno));
  }
  llama_model_quantize_params params = llama_model_quantize_default_params();
  params.ftype = static_cast<llama_ftype>(*ftype);
  params.nthread = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (llama_model_quantize(in.c_str(), partial.path().c_str(), &params) != 0) {
    return Error::make(ErrorCode::kCorrupt,
                       "cannot quantize " + in + ": " + engine::llama::last_llama_error());
  }
  return partial.commit(out);
}

}  // namespace supportd::model
