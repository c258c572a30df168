#include "http/request_framing.h"

#include <boost/beast/http/field.hpp>

#include "http/message.h"

namespace supportd::http {

namespace bhttp = boost::beast::http;

bool head_arrived(std::string_view received, std::size_t from) {
  for (std::size_t at = received.find('\n', from); at != std::string_view::npos;
       at = received.find('\n', at + 1)) {
    if (at == 0 || received[at - 1] != '\r') return true;  // a bare LF
    if (at >= 3 && received.compare(at - 3, 4, "\r\n\r\n") == 0) return true;
  }
  return false;
}

std::optional<Refusal> check_folding(std::string_view received) {
  const std::string_view head = received.substr(0, received.find("\r\n\r\n"));
  for (std::size_t at = head.find("\r\n"); at != std::string_view::npos;
       at = head.find("\r\n", at + 2)) {
    if (at + 2 < head.size() && (head[at + 2] == ' ' || head[at + 2] == '\t')) {
      return Refusal{400,
                     "a header line begins with white space (obs-fold, RFC 9112 5.2): send "
                     "each field on one line",
                     "bad_request"};
    }
  }
  return std::nullopt;
}

std::optional<Refusal> check_framing(const bhttp::request<bhttp::string_body>& head, bool chunked) {
  if (head.count(bhttp::field::transfer_encoding) > 0) {
    const std::string codings = lower_case(head[bhttp::field::transfer_encoding]);
    // HTTP/1.0 has no transfer codings: its framing is faulty (RFC 9112 6.1).
    if (head.version() < 11) {
      return Refusal{400, "Transfer-Encoding is not allowed in an HTTP/1.0 request", "bad_request"};
    }
    // Only "chunked" alone: with another coding last the body's end is unknowable (RFC 9112
    // 6.3: 400 and close, or the rest of the body would be read as the next request); with
    // one before chunked the body could not be decoded (501).
    if (!chunked) {
      return Refusal{400,
                     "Transfer-Encoding \"" + codings +
                         "\" does not end in chunked: the body's length is unknown",
                     "bad_request"};
    }
    if (codings.find(',') != std::string::npos || head.count(bhttp::field::transfer_encoding) > 1) {
      return Refusal{
          501,
          "Transfer-Encoding \"" + codings + "\" is not supported: send the body plain or chunked",
          "unsupported_transfer_encoding"};
    }
  }
  const std::size_t hosts = head.count(bhttp::field::host);
  if (hosts > 1) return Refusal{400, "more than one Host header", "bad_request"};
  if (hosts == 0 && head.version() >= 11) {
    return Refusal{400, "an HTTP/1.1 request needs a Host header", "bad_request"};
  }
  return std::nullopt;
}

}  // namespace supportd::http
