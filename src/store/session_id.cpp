// Session ids (session_id.h): base64url, the HMAC-SHA256 signature and its constant-time check,
// the storage key, and the session secret loaded or created (mode 0600).
#include "store/session_id.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace supportd::store {
namespace {

constexpr std::size_t kNonceBytes = 16;
constexpr std::size_t kMacBytes = 32;
constexpr std::size_t kMaxNameBytes = 64;
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64url(const unsigned char* data, std::size_t size) {
  std::string out;
  out.reserve((size * 4 + 2) / 3);
  for (std::size_t i = 0; i < size; i += 3) {
    const std::uint32_t chunk = (std::uint32_t{data[i]} << 16) |
                                (i + 1 < size ? std::uint32_t{data[i + 1]} << 8 : 0) |
                                (i + 2 < size ? std::uint32_t{data[i + 2]} : 0);
    const std::size_t chars = i + 3 <= size ? 4 : size - i + 1;
    for (std::size_t c = 0; c < chars; ++c)
      out += kAlphabet[(chunk >> (18 - 6 * c)) & 63];
  }
  return out;
}

constexpr std::size_t encoded_size(std::size_t bytes) {
  return (bytes * 4 + 2) / 3;
}

bool is_base64url(std::string_view text) {
  for (char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Status check_name(std::string_view value, const char* field) {
  if (value.empty() || value.size() > kMaxNameBytes) {
    return Error::invalid(std::string(field) + " must have 1 to 64 characters", field);
  }
  for (char c : value) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) {
      return Error::invalid(std::string(field) + " may contain only letters, digits, '-' and '_'",
                            field);
    }
  }
  return {};
}

std::string session_key(std::string_view token) {
  std::string key(token.substr(0, token.rfind('.')));
  for (char& c : key) {
    if (c == '.') c = ':';
  }
  return key;
}

SessionId::SessionId(std::string token, std::string tenant, std::string user, std::string nonce)
    : token_(std::move(token)), tenant_(std::move(tenant)), user_(std::move(user)) {
  key_ = tenant_ + ":" + user_ + ":" + nonce;
}

Result<SessionSigner> SessionSigner::create(std::string secret) {
  if (secret.size() < kMinSecretBytes) {
    return Error::invalid("the session secret must have at least 32 bytes", "session_secret");
  }
  return SessionSigner(std::move(secret));
}

Result<std::string> SessionSigner::load_or_create_secret(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  std::array<unsigned char, 32> random{};
  if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1)
    return Error::make(ErrorCode::kInternal, "no randomness for the session secret");
  std::string generated;
  for (unsigned char byte : random) {
    static constexpr char kHex[] = "0123456789abcdef";
    generated += kHex[byte >> 4];
    generated += kHex[byte & 15];
  }
  // O_EXCL: when several processes start at once, exactly one secret is written.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    const std::string line = generated + "\n";
    const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!written || !synced) {
      std::filesystem::remove(path, ec);
      return Error::make(ErrorCode::kIo, "cannot write the session secret " + path.string());
    }
    return generated;
  }
  if (errno != EEXIST) {
    return Error::make(ErrorCode::kIo, "cannot create the session secret " + path.string() + ": " +
                                           std::strerror(errno));
  }
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  std::string secret = content.str();
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r'))
    secret.pop_back();
  if (!in || secret.size() < kMinSecretBytes) {
    return Error::make(ErrorCode::kCorrupt,
                       "the session secret " + path.string() + " is unreadable or too short");
  }
  return secret;
}

std::string SessionSigner::mac(std::string_view tenant, std::string_view user,
                               std::string_view nonce) const {
  std::string message;
  message.reserve(3 + tenant.size() + user.size() + nonce.size() + 3);
  message.append("v1").append(1, '\0').append(tenant).append(1, '\0').append(user).append(1, '\0');
  message.append(nonce);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret_.data(), static_cast<int>(secret_.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
  return base64url(digest, kMacBytes);
}

Result<SessionId> SessionSigner::issue(std::string_view tenant, std::string_view user) const {
  if (Status status = check_name(tenant, "tenant"); !status) return status.error();
  if (Status status = check_name(user, "user"); !status) return status.error();
  unsigned char random[kNonceBytes];
  if (RAND_bytes(random, sizeof(random)) != 1)
    return Error::make(ErrorCode::kInternal, "no randomness for a session id");
  std::string nonce = base64url(random, sizeof(random));
  std::string token =
      std::string(tenant) + "." + std::string(user) + "." + nonce + "." + mac(tenant, user, nonce);
  return SessionId(std::move(token), std::string(tenant), std::string(user), std::move(nonce));
}

Result<SessionId> SessionSigner::verify(std::string_view token) const {
  const Error malformed =
      Error::invalid("malformed session id (expected tenant.user.nonce.signature)", "session");
  if (token.size() > 2 * kMaxNameBytes + encoded_size(kNonceBytes) + encoded_size(kMacBytes) + 3)
    return malformed;
  std::string_view parts[4];
  std::size_t start = 0;
  for (int i = 0; i < 4; ++i) {
    const std::size_t dot = i < 3 ? token.find('.', start) : token.size();
    if (dot == std::string_view::npos) return malformed;
    parts[i] = token.substr(start, dot - start);
    start = dot + 1;
  }
  if (parts[3].find('.') != std::string_view::npos) return malformed;
  if (!check_name(parts[0], "tenant") || !check_name(parts[1], "user")) return malformed;
  if (parts[2].size() != encoded_size(kNonceBytes) || !is_base64url(parts[2])) return malformed;
  if (parts[3].size() != encoded_size(kMacBytes) || !is_base64url(parts[3])) return malformed;
  const std::string expected = mac(parts[0], parts[1], parts[2]);
  if (CRYPTO_memcmp(expected.data(), parts[3].data(), expected.size()) != 0) {
    return Error{ErrorCode::kNotFound, "unknown session id", "session"};
  }
  return SessionId(std::string(token), std::string(parts[0]), std::string(parts[1]),
                   std::string(parts[2]));
}

}  // namespace supportd::store
