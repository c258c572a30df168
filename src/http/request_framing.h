// What a request's head must satisfy before the server trusts it to say where the request
// ends: one way to find the body's end (RFC 9112 6.1-6.3), exactly one Host (RFC 9112 3.2), no
// folded header lines (RFC 9112 5.2). A proxy in front of supportd may read a head that breaks
// these rules differently from Beast, and the two would then disagree on where the next request
// starts (request smuggling); such requests are refused with 400 and the connection closed.
// Beast itself refuses Content-Length with Transfer-Encoding, Content-Lengths that differ, a
// repeated "chunked", bare LF or CR, and control characters in values. Internal to http/.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

namespace supportd::http {

// Why a request is refused before its body is read.
struct Refusal {
  int status;             // 400, or 501 for a coding supportd cannot decode
  std::string message;    // for the client, names what is wrong
  std::string_view code;  // the error's code in the JSON body
};

// True when `received` (a request's first bytes) holds its whole head, up to the empty line, or
// enough to see it is malformed (a bare LF, which Beast refuses): the head can be checked and
// parsed now. `from`: how much of `received` an earlier call already looked at.
bool head_arrived(std::string_view received, std::size_t from = 0);

// A refusal when the head (the part of `received` before its first empty line) has a folded
// line: a line that begins with a space or tab continues the previous one (obs-fold), which
// Beast would silently join, and a proxy might read as a field of its own.
std::optional<Refusal> check_folding(std::string_view received);

// A refusal when a parsed head leaves the body's end unclear or names no single host: a
// Transfer-Encoding other than chunked alone, any Transfer-Encoding on HTTP/1.0, no Host on
// HTTP/1.1 or more than one Host.
// REQUIRES: `head` as Beast parsed it (Beast has already checked Content-Length).
std::optional<Refusal> check_framing(
    const boost::beast::http::request<boost::beast::http::string_body>& head, bool chunked);

}  // namespace supportd::http
