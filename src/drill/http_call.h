// The drill's HTTP calls to the server it drills: one plain-HTTP request per call on a fresh
// connection (Connection: close), bounded in time, from any thread. Small and blocking on
// purpose: the drill's load threads and its checks each wait for their own answers.
// Thread-safety: a free function; calls on different threads are independent.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/http_url.h"
#include "core/status.h"

namespace supportd::drill {

struct HttpReply {
  int status = 0;
  std::string body;
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// `method` `path` on the server at `url` (its path is a prefix), with `body` (sent as JSON when
// not empty) and `headers`. Any status is a reply; kUnavailable naming the URL when the server
// cannot be reached, or does not answer whole within `timeout`; kCorrupt when the answer is
// not HTTP.
Result<HttpReply> http_call(const HttpUrl& url, std::string_view method, std::string_view path,
                            std::string_view body, const HeaderList& headers,
                            std::chrono::milliseconds timeout);

}  // namespace supportd::drill
