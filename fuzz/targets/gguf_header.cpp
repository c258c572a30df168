// Fuzz target: GGUF headers as `supportd model info` reads them (model/gguf_header.h): gguf's
// reader (ggml's base library, built instrumented) and what supportd computes from the header.
// A file that is not a whole GGUF is refused with kCorrupt and gguf's reason; never a crash.
#include "model/gguf_header.h"

#include <mutex>

#include "fuzz_check.h"
#include "ggml.h"
#include "temp_input.h"

using namespace supportd;

namespace {

// ggml's log, kept quiet: its last error is what read_gguf_header reports.
std::string last_error;

void capture(ggml_log_level level, const char* text, void*) {
  if (level == GGML_LOG_LEVEL_ERROR) last_error = text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::once_flag once;
  std::call_once(once, [] { ggml_log_set(capture, nullptr); });
  last_error.clear();
  const std::string& path = fuzz::write_input(data, size, ".gguf");
  const auto info = model::read_gguf_header(path, [] { return last_error; });
  fuzz::require_explained(info);
  if (info) {
    fuzz::require(info->parameters >= 0, "a model has a non-negative number of parameters");
    fuzz::require(info->bytes == static_cast<std::int64_t>(size), "the size is the file's");
  }
  return 0;
}
