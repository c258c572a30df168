// SHA-256 as lower-case hex, for names in Redis that must not carry what they name (API keys,
// questions). OpenSSL stays in digest.cpp.
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <string_view>

namespace supportd::store {

// The 64 hex digits of SHA-256(data).
std::string sha256_hex(std::string_view data);

}  // namespace supportd::store
