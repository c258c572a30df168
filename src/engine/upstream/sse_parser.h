// Splits a server-sent-events byte stream into the data payloads of its events
// ("data:" lines joined by newlines; events end at a blank line; CR LF or LF).
// Not thread-safe; one per stream.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace supportd::engine::upstream {

class SseParser {
 public:
  // The largest event (or line) taken by default: far above any token's event, far below what
  // would hurt the process.
  static constexpr std::size_t kDefaultMaxEventBytes = 4 << 20;

  explicit SseParser(std::size_t max_event_bytes = kDefaultMaxEventBytes)
      : max_event_bytes_(max_event_bytes) {}

  // Returns the data of every event completed by `bytes`. Once a line or an event's data grows
  // past max_event_bytes the parser is overflowed(): it returns nothing more, and the stream
  // should be given up (a hostile or broken sender).
  std::vector<std::string> feed(std::string_view bytes);
  bool overflowed() const { return overflowed_; }
  std::size_t max_event_bytes() const { return max_event_bytes_; }

 private:
  std::size_t max_event_bytes_;
  std::string line_;  // partial line
  std::string data_;  // data of the current event
  bool has_data_ = false;
  bool overflowed_ = false;
};

}  // namespace supportd::engine::upstream
