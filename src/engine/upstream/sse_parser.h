// Splits a server-sent-events byte stream into the data payloads of its events
// ("data:" lines joined by newlines; events end at a blank line; CR LF or LF).
// Not thread-safe; one per stream.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace supportd::engine::upstream {

class SseParser {
 public:
  // Returns the data of every event completed by `bytes`.
  std::vector<std::string> feed(std::string_view bytes);

 private:
  std::string line_;  // partial line
  std::string data_;  // data of the current event
  bool has_data_ = false;
};

}  // namespace supportd::engine::upstream
