// API key digests (see key_digest.h) over OpenSSL's SHA-256, CRYPTO_memcmp and OPENSSL_cleanse.
#include "api/key_digest.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

namespace supportd::api {

static_assert(SHA256_DIGEST_LENGTH == 32);

KeyDigest KeyDigest::of(std::string_view key) {
  KeyDigest digest;
  SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), digest.bytes_.data());
  digest.set_ = true;
  return digest;
}

bool KeyDigest::matches(const KeyDigest& other) const {
  // Every byte is compared whatever the contents; an unset side matches nothing.
  const bool same = CRYPTO_memcmp(bytes_.data(), other.bytes_.data(), bytes_.size()) == 0;
  return same && set_ && other.set_;
}

std::string KeyDigest::name() const {
  if (!set_) return {};
  return std::string(reinterpret_cast<const char*>(bytes_.data()), bytes_.size());
}

void wipe(std::string& secret) {
  if (!secret.empty()) OPENSSL_cleanse(secret.data(), secret.size());
  secret.clear();
}

}  // namespace supportd::api
