// Watching each request the server hands to its handler, from its start to the last byte of
// its answer: what tracing and request logs need (api/ makes the HTTP server span of it).
// http/ knows nothing of what a watcher does.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "http/message.h"

namespace supportd::http {

// How one exchange ended.
struct Exchange {
  int status = 0;         // the status written (101 for a WebSocket upgrade); 0 when none was
  bool written = false;   // the whole answer reached the socket
  bool streamed = false;  // the body went out as a stream (server-sent events)
  bool upgraded = false;  // the connection became a WebSocket
  std::size_t body_bytes = 0;
  // When the first byte of a streamed body was written (its head, then each chunk follow).
  std::chrono::steady_clock::time_point first_byte;
};

// One request's watch. Calls come from the connection's strand, in this order: handled()
// just after the handler returned (or threw), before anything is written; then ended(),
// once, when the answer was written whole, the client went away, or the connection became a
// WebSocket. The request the watch was made for stays alive until ended() returns.
class RequestWatch {
 public:
  virtual ~RequestWatch() = default;
  // The handler's response; headers may be added (they go out with it, deferred or not).
  virtual void handled(Response& response) = 0;
  // Fields of the watch's own for the answer's head, appended to `head` as "Name: value\r\n"
  // lines when the head is written (whole, deferred or streamed; for a WebSocket's 101, which
  // Beast writes, the connection hands the lines to Beast): no list of headers, no allocation.
  // Called at most once, after handled().
  // REQUIRES of the watch: names are tokens, values hold no CR, LF or NUL.
  virtual void write_fields(std::string& head) const { (void)head; }
  virtual void ended(const Exchange& exchange) = 0;
};

// Made by the server for each request that reaches the handler, just before the handler, and
// for each answer the connection gives itself while reading a request (a refusal: 400, 408,
// 413, 431, or 503 past max_connections), just before it, with what was read of the request
// (its method and path empty when its request line was not read whole); on the connection's
// strand. Null: nothing to watch.
using RequestWatcher = std::function<std::unique_ptr<RequestWatch>(Request& request)>;

}  // namespace supportd::http
