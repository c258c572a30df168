// What identifies a model file for a roll-out: the SHA-256 of its bytes, its size, its GGUF
// architecture and quantization, and the SHA-256 of its chat template. The router shows them
// per version (engine/router) and `supportd model verify` compares them with a configuration.
// Thread-safety: pure functions (they read the file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "core/status.h"

namespace supportd::model {

struct Fingerprint {
  std::string path;
  std::string sha256;  // lower-case hex
  std::int64_t bytes = 0;
  std::string architecture;
  std::string quantization;          // e.g. "Q8_0"
  std::string chat_template_sha256;  // empty without a chat template
};

// Reads `path` whole (it streams: a large file needs no memory). `between_pieces`, when set,
// is called after each piece of kFingerprintPiece bytes is hashed (to share the CPU: a serving
// process hashes a new version's file in turns with its engines). Errors: read_model_info's
// (not found, not GGUF, truncated), kIo when reading fails midway.
inline constexpr std::size_t kFingerprintPiece = std::size_t{16} << 20;
Result<Fingerprint> fingerprint_model(const std::string& path,
                                      const std::function<void()>& between_pieces = {});

// True when `text` is 64 hex digits (either case).
bool is_sha256_hex(const std::string& text);

}  // namespace supportd::model
