// The OpenSSL context the server's TLS connections share, made from TlsFiles (tls.h). Internal
// to http/ (includes Asio's SSL headers).
// Thread-safety: make_tls_context is a pure function; the context it returns is used read-only
// by every connection's handshake after it is made.
#pragma once

#include <memory>

#include <boost/asio/ssl/context.hpp>

#include "core/status.h"
#include "http/tls.h"

namespace supportd::http {

// A server context with the certificate chain and key of `files`: TLS 1.2 and later. Errors:
// check_tls_files's.
Result<std::unique_ptr<boost::asio::ssl::context>> make_tls_context(const TlsFiles& files);

}  // namespace supportd::http
