// The server's TLS context (see tls_context.h) and the check of its files (tls.h), whose errors
// name the file and say what is wrong with it.
#include "http/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace supportd::http {
namespace {

namespace ssl = boost::asio::ssl;

Status readable(const std::string& file, const char* what) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    return Error::invalid(std::string(what) + " " + file + ": cannot be read (" +
                          std::strerror(errno) + ")");
  return {};
}

}  // namespace

Result<std::unique_ptr<ssl::context>> make_tls_context(const TlsFiles& files) {
  if (files.certificate_file.empty() || files.key_file.empty()) {
    return Error::invalid("TLS needs both files: the certificate and its private key");
  }
  const std::string& certificate = files.certificate_file;
  const std::string& key = files.key_file;
  if (Status status = readable(certificate, "TLS certificate"); !status) return status.error();
  if (Status status = readable(key, "TLS key"); !status) return status.error();
  auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
  SSL_CTX_set_min_proto_version(context->native_handle(), TLS1_2_VERSION);
  context->set_options(ssl::context::default_workarounds | ssl::context::single_dh_use);
  boost::system::error_code ec;
  context->use_certificate_chain_file(certificate, ec);
  if (ec) {
    ERR_clear_error();
    return Error::invalid("TLS certificate " + certificate + ": not a PEM certificate (" +
                          ec.message() + ")");
  }
  context->use_private_key_file(key, ssl::context::pem, ec);
  const auto error = static_cast<unsigned long>(ec.value());
  const bool mismatch = ec && ERR_GET_LIB(error) == ERR_LIB_X509 &&
                        (ERR_GET_REASON(error) == X509_R_KEY_VALUES_MISMATCH ||
                         ERR_GET_REASON(error) == X509_R_KEY_TYPE_MISMATCH);
  if (mismatch || (!ec && SSL_CTX_check_private_key(context->native_handle()) != 1)) {
    ERR_clear_error();
    return Error::invalid("TLS key " + key + " does not match the certificate " + certificate);
  }
  if (ec) {
    ERR_clear_error();
    return Error::invalid("TLS key " + key + ": not a PEM private key (" + ec.message() + ")");
  }
  return context;
}

Status check_tls_files(const TlsFiles& files) {
  if (!files.enabled()) return {};
  auto context = make_tls_context(files);
  if (!context) return context.error();
  return {};
}

}  // namespace supportd::http
