// API keys as supportd keeps them: their SHA-256, never the key. A key read from the config
// file is digested at once and its text wiped (app/api_keys_file.h); a request's key is digested
// and compared with every configured digest in constant time (OpenSSL's CRYPTO_memcmp), so
// neither the keys nor how much of a key a guess shares can be read from memory or from timing.
// OpenSSL stays in key_digest.cpp.
// Thread-safety: KeyDigest is a value; the functions are pure (wipe changes only its argument).
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace supportd::api {

class KeyDigest {
 public:
  // The digest of no key: matches no key's digest (not even another empty one).
  KeyDigest() = default;
  // SHA-256 of `key`.
  static KeyDigest of(std::string_view key);

  // True when both are digests of the same key; the time taken does not depend on their bytes.
  bool matches(const KeyDigest& other) const;
  // The digest's 32 bytes as a string (empty for the digest of no key): names the key where a
  // name is needed (rate limits, the caller) without being the key.
  std::string name() const;
  bool empty() const { return !set_; }

 private:
  std::array<unsigned char, 32> bytes_{};
  bool set_ = false;
};

// Overwrites the characters of `secret` (in a way the optimiser cannot drop) and empties it.
void wipe(std::string& secret);

}  // namespace supportd::api
