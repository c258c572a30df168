// Signed session ids. A session id is "{tenant}.{user}.{nonce}.{mac}": the nonce is 16 random
// bytes and the mac an HMAC-SHA256 over tenant, user and nonce with a server secret, both
// base64url. Only a holder of the secret can make an id that verifies, so forged or random
// ids are refused before any store is touched.
// Thread-safety: SessionSigner is immutable after construction; every method may be called
// from any thread.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "core/status.h"

namespace supportd::store {

// Tenants, users and agents are named by 1..64 characters of [A-Za-z0-9_-].
// Returns an invalid_argument error naming `field` otherwise.
Status check_name(std::string_view value, const char* field);

// The storage key "{tenant}:{user}:{nonce}" of a well-formed token (its signature dropped).
std::string session_key(std::string_view token);

// A session id whose signature has been checked. Made only by SessionSigner.
class SessionId {
 public:
  const std::string& token() const { return token_; }  // the string clients hold
  const std::string& tenant() const { return tenant_; }
  const std::string& user() const { return user_; }
  // "{tenant}:{user}:{nonce}": the storage key (Redis: "session:" + key()).
  const std::string& key() const { return key_; }

 private:
  friend class SessionSigner;
  SessionId(std::string token, std::string tenant, std::string user, std::string nonce);

  std::string token_;
  std::string tenant_;
  std::string user_;
  std::string key_;
};

class SessionSigner {
 public:
  static constexpr std::size_t kMinSecretBytes = 32;

  // Fails with invalid_argument when the secret is shorter than kMinSecretBytes.
  static Result<SessionSigner> create(std::string secret);

  // Reads the secret stored at `path`, or generates one (32 random bytes, hex) and stores it
  // there with mode 0600. Every process sharing a store must use the same secret.
  static Result<std::string> load_or_create_secret(const std::filesystem::path& path);

  // A new id for a conversation of `user` at `tenant`; errors name an invalid field.
  Result<SessionId> issue(std::string_view tenant, std::string_view user) const;

  // Checks the format (invalid_argument) and the signature in constant time (not_found:
  // "unknown session id"). Never touches a store.
  Result<SessionId> verify(std::string_view token) const;

 private:
  explicit SessionSigner(std::string secret) : secret_(std::move(secret)) {}
  std::string mac(std::string_view tenant, std::string_view user, std::string_view nonce) const;

  std::string secret_;
};

}  // namespace supportd::store
