// A GGUF file's header read into ModelInfo, as `supportd model info` shows it: gguf's own
// reader (from ggml, no llama.cpp model loaded, no tensor data read). Kept apart from info.cpp,
// which adds llama.cpp's log, so that the reading needs only ggml's base library (the fuzz
// target fuzz/targets/gguf_header.cpp drives it).
// Thread-safety: a pure function of the file.
#pragma once

#include <functional>
#include <string>

#include "core/status.h"
#include "model/info.h"

namespace supportd::model {

// The file's metadata and tensor summary. Fails with kNotFound (no such file), kInvalidArgument
// (a directory), kCorrupt (bad magic; a header gguf refuses, with `gguf_error()` saying why;
// tensors that need more bytes than the file has).
Result<ModelInfo> read_gguf_header(const std::string& path,
                                   const std::function<std::string()>& gguf_error);

}  // namespace supportd::model
