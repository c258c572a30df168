// The head of an HTTP/1.1 response as the bytes that go on the wire: status line, the server's
// own fields, the handler's, the framing (Content-Length, or chunked for a stream) and the
// connection's fate, in one contiguous string. Written by hand instead of through Beast's
// basic_fields (an allocation and a tree insertion per field, and a serializer that walks one
// buffer per field), which cost a small answer's path more than the answer itself
// (docs/performance.md, "Tracing cost").
// A field whose name is not an RFC 9110 token, or whose value holds a CR, LF or NUL, is left
// out (never sent as a line that would split the head); values are trimmed of surrounding
// spaces and tabs, as Beast did. Internal to http/.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "http/message.h"
#include "http/request_watch.h"

namespace supportd::http {

struct ResponseHead {
  int status = 200;
  std::string_view content_type;
  // The handler's fields, then `more` (fields the connection adds, e.g. a deferred answer's).
  const Headers* fields = nullptr;
  const Headers* more = nullptr;
  // A whole body's length: Content-Length (left out for 1xx, 204 and 304, which have no body).
  // None: the body follows chunked, with the fields a stream needs (no caching or buffering
  // on the way).
  std::optional<std::size_t> content_length;
  bool keep_alive = true;  // false: "Connection: close"
  // The request's watch, whose own fields follow the others (RequestWatch::write_fields).
  const RequestWatch* watch = nullptr;
};

// The head's bytes, up to and including the empty line that ends it.
std::string format_response_head(const ResponseHead& head);

// Whether `name` may be sent as a field name and `value` as its value.
bool sendable_field(std::string_view name, std::string_view value);

}  // namespace supportd::http
