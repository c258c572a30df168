// Reading a GGUF file's header for `supportd model info` (see gguf_header.h): gguf's own reader
// with no tensor data loaded, then the figures ModelInfo holds.
#include "model/gguf_header.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "gguf.h"

namespace supportd::model {
namespace {

std::string string_value(const gguf_context* g, const std::string& key) {
  const std::int64_t id = gguf_find_key(g, key.c_str());
  if (id < 0 || gguf_get_kv_type(g, id) != GGUF_TYPE_STRING) return {};
  return gguf_get_val_str(g, id);
}

std::int64_t int_value(const gguf_context* g, const std::string& key) {
  const std::int64_t id = gguf_find_key(g, key.c_str());
  if (id < 0) return 0;
  switch (gguf_get_kv_type(g, id)) {
    case GGUF_TYPE_UINT32: return gguf_get_val_u32(g, id);
    case GGUF_TYPE_INT32: return gguf_get_val_i32(g, id);
    case GGUF_TYPE_UINT64: return static_cast<std::int64_t>(gguf_get_val_u64(g, id));
    case GGUF_TYPE_INT64: return gguf_get_val_i64(g, id);
    case GGUF_TYPE_UINT16: return gguf_get_val_u16(g, id);
    default: return 0;
  }
}

}  // namespace

Result<ModelInfo> read_gguf_header(const std::string& path,
                                   const std::function<std::string()>& gguf_error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Error::invalid(path + " is a directory, not a GGUF model file");
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error::make(ErrorCode::kNotFound, "model file not found: " + path);
  }
  {
    std::ifstream file(path, std::ios::binary);
    char magic[4] = {};
    if (!file.read(magic, 4) || std::string_view(magic, 4) != "GGUF") {
      return Error::make(ErrorCode::kCorrupt, path + " is not a GGUF file (bad magic)");
    }
  }
  gguf_init_params params{/*no_alloc=*/true, /*ctx=*/nullptr};
  gguf_context* g = gguf_init_from_file(path.c_str(), params);
  if (g == nullptr) {
    return Error::make(ErrorCode::kCorrupt,
                       path + " is a corrupt or truncated GGUF file: " + gguf_error());
  }
  ModelInfo info;
  info.path = path;
  info.bytes = static_cast<std::int64_t>(std::filesystem::file_size(path, ec));
  // The header can be whole while the weights are cut off (an interrupted copy).
  std::uint64_t needed = gguf_get_data_offset(g);
  for (std::int64_t t = 0; t < gguf_get_n_tensors(g); ++t) {
    needed =
        std::max<std::uint64_t>(needed, gguf_get_data_offset(g) + gguf_get_tensor_offset(g, t) +
                                            gguf_get_tensor_size(g, t));
  }
  if (static_cast<std::uint64_t>(info.bytes) < needed) {
    gguf_free(g);
    return Error::make(ErrorCode::kCorrupt, path + " is truncated: its tensors need " +
                                                std::to_string(needed) + " bytes, the file has " +
                                                std::to_string(info.bytes));
  }
  info.architecture = string_value(g, "general.architecture");
  info.name = string_value(g, "general.name");
  const std::string& a = info.architecture;
  info.context_length = static_cast<int>(int_value(g, a + ".context_length"));
  info.embedding = static_cast<int>(int_value(g, a + ".embedding_length"));
  info.layers = static_cast<int>(int_value(g, a + ".block_count"));
  info.heads = static_cast<int>(int_value(g, a + ".attention.head_count"));
  info.kv_heads = static_cast<int>(int_value(g, a + ".attention.head_count_kv"));
  info.tokenizer = string_value(g, "tokenizer.ggml.model");
  if (const std::string pre = string_value(g, "tokenizer.ggml.pre"); !pre.empty()) {
    info.tokenizer += " (" + pre + ")";
  }
  if (const std::int64_t id = gguf_find_key(g, "tokenizer.ggml.tokens"); id >= 0) {
    info.vocabulary = static_cast<int>(gguf_get_arr_n(g, id));
  }
  info.chat_template = string_value(g, "tokenizer.chat_template");
  info.synthetic = gguf_find_key(g, "supportd.synthetic") >= 0;

  std::map<std::string, std::int64_t> parameters_by_type;
  for (std::int64_t t = 0; t < gguf_get_n_tensors(g); ++t) {
    const std::int64_t* ne = gguf_get_tensor_ne(g, t);
    std::int64_t n = 1;
    bool overflow = false;
    for (int d = 0; d < GGML_MAX_DIMS; ++d)
      overflow = overflow || __builtin_mul_overflow(n, ne[d], &n);
    // A hostile header can claim more elements than any count holds (the fuzzer found one).
    if (overflow || __builtin_add_overflow(info.parameters, n, &info.parameters)) {
      gguf_free(g);
      return Error::make(ErrorCode::kCorrupt,
                         path + " is corrupt: tensor " + std::to_string(t) +
                             " claims more elements than a 64-bit count holds");
    }
    const std::string type = ggml_type_name(gguf_get_tensor_type(g, t));
    info.tensor_types[type] += 1;
    parameters_by_type[type] += n;
  }
  std::int64_t most = -1;
  for (const auto& [type, n] : parameters_by_type) {
    if (n > most) {
      most = n;
      info.file_type = type;
    }
  }
  gguf_free(g);
  return info;
}

}  // namespace supportd::model
