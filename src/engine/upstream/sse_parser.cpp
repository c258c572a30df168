// Splitting a server-sent-events byte stream into its events' data (see sse_parser.h).
#include "engine/upstream/sse_parser.h"

namespace supportd::engine::upstream {

std::vector<std::string> SseParser::feed(std::string_view bytes) {
  std::vector<std::string> events;
  if (overflowed_) return events;
  for (char c : bytes) {
    if (c != '\n') {
      line_.push_back(c);
      if (line_.size() > max_event_bytes_) break;
      continue;
    }
    if (!line_.empty() && line_.back() == '\r') line_.pop_back();
    if (line_.empty()) {
      if (has_data_) events.push_back(std::move(data_));
      data_.clear();
      has_data_ = false;
    } else if (line_.rfind("data:", 0) == 0) {
      std::string_view value = std::string_view(line_).substr(5);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      if (has_data_) data_.push_back('\n');
      data_.append(value);
      has_data_ = true;
      if (data_.size() > max_event_bytes_) break;
    }  // other fields (event:, id:, retry:, comments) carry nothing we use
    line_.clear();
  }
  if (line_.size() > max_event_bytes_ || data_.size() > max_event_bytes_) {
    overflowed_ = true;
    line_.clear();
    line_.shrink_to_fit();
    data_.clear();
    data_.shrink_to_fit();
  }
  return events;
}

}  // namespace supportd::engine::upstream
