// TLS for the HTTP server: the certificate chain and private key (PEM files) it serves HTTPS,
// HTTPS streams (server-sent events) and secure WebSockets (wss://) with, on its one port.
// OpenSSL, through Asio's SSL stream, stays inside http/'s .cpp files.
// Thread-safety: a value and a pure function (it reads the files).
#pragma once

#include <string>

#include "core/status.h"

namespace supportd::http {

struct TlsFiles {
  std::string certificate_file;  // PEM: the server's certificate, then any intermediates
  std::string key_file;          // PEM: the certificate's private key (unencrypted)
  // Either is set: the server speaks TLS only (check_tls_files requires both).
  bool enabled() const { return !certificate_file.empty() || !key_file.empty(); }
};

// Loads both files as the server will: ok when neither is set. Errors (kInvalidArgument) name
// the file: one given without the other, a file that cannot be read (with the system's
// reason), one that is not a PEM certificate or private key (with OpenSSL's reason), or a key
// that does not belong to the certificate.
Status check_tls_files(const TlsFiles& files);

}  // namespace supportd::http
