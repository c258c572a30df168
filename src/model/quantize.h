// `supportd model quantize`: llama.cpp's quantizer behind a small, checked interface.
#pragma once

#include <string>

#include "core/status.h"

namespace supportd::model {

// The llama.cpp file type for "f16", "q8_0", "q4_0", "q4_k_m" (case-insensitive).
Result<int> parse_quant_type(const std::string& name);
const char* quant_type_names();

// Writes `out`, a copy of `in` with its weights quantized to `type`.
Status quantize(const std::string& in, const std::string& out, const std::string& type);

}  // namespace supportd::model
