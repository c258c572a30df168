// A model file's fingerprint (see fingerprint.h): its header through read_model_info, its
// bytes through OpenSSL's streaming SHA-256.
#include "model/fingerprint.h"

#include <cctype>
#include <cstdio>
#include <memory>
#include <vector>

#include <openssl/evp.h>

#include "model/info.h"

namespace supportd::model {
namespace {

std::string hex(const unsigned char* digest, unsigned int length) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    text += kHex[digest[i] >> 4];
    text += kHex[digest[i] & 15];
  }
  return text;
}

// SHA-256 over OpenSSL's EVP interface, fed piece by piece.
class Sha256 {
 public:
  Sha256() : context_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr);
  }
  void add(const void* data, std::size_t size) { EVP_DigestUpdate(context_.get(), data, size); }
  std::string finish() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(context_.get(), digest, &length);
    return hex(digest, length);
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context_;
};

Result<std::string> file_sha256(const std::string& path,
                                const std::function<void()>& between_pieces) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), std::fclose);
  if (!file) return Error::make(ErrorCode::kIo, "cannot open " + path);
  Sha256 sha;
  std::vector<char> buffer(1 << 20);
  std::size_t piece = 0;  // bytes hashed since the last call of between_pieces
  while (true) {
    const std::size_t got = std::fread(buffer.data(), 1, buffer.size(), file.get());
    if (got > 0) sha.add(buffer.data(), got);
    if (got < buffer.size()) break;
    piece += got;
    if (between_pieces && piece >= kFingerprintPiece) {
      between_pieces();
      piece = 0;
    }
  }
  if (std::ferror(file.get())) return Error::make(ErrorCode::kIo, "reading " + path + " failed");
  return sha.finish();
}

}  // namespace

Result<Fingerprint> fingerprint_model(const std::string& path,
                                      const std::function<void()>& between_pieces) {
  auto info = read_model_info(path);
  if (!info) return info.error();
  auto sha = file_sha256(path, between_pieces);
  if (!sha) return sha.error();
  Fingerprint print;
  print.path = path;
  print.sha256 = std::move(sha).value();
  print.bytes = info->bytes;
  print.architecture = info->architecture;
  print.quantization = info->file_type;
  if (!info->chat_template.empty()) {
    Sha256 template_sha;
    template_sha.add(info->chat_template.data(), info->chat_template.size());
    print.chat_template_sha256 = template_sha.finish();
  }
  return print;
}

bool is_sha256_hex(const std::string& text) {
  if (text.size() != 64) return false;
  for (const unsigned char c : text) {
    if (!std::isxdigit(c)) return false;
  }
  return true;
}

}  // namespace supportd::model
