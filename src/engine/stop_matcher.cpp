// Stop-string matching over streamed text, holding back what may be a stop string's
// beginning (see stop_matcher.h).
#include "engine/stop_matcher.h"

#include <algorithm>

namespace supportd::engine {

StopMatcher::StopMatcher(std::vector<std::string> stops) : stops_(std::move(stops)) {
  std::erase_if(stops_, [](const std::string& s) { return s.empty(); });
}

std::string StopMatcher::push(std::string_view text) {
  if (stopped_) return {};
  if (stops_.empty()) return std::string(text);
  held_.append(text);

  // The earliest complete stop string wins.
  std::size_t cut = std::string::npos;
  for (const auto& stop : stops_)
    cut = std::min(cut, held_.find(stop));
  if (cut != std::string::npos) {
    stopped_ = true;
    std::string out = held_.substr(0, cut);
    held_.clear();
    return out;
  }

  // Hold back the longest tail that is a proper prefix of some stop string.
  std::size_t keep = 0;
  for (const auto& stop : stops_) {
    const std::size_t longest = std::min(stop.size() - 1, held_.size());
    for (std::size_t n = longest; n > keep; --n) {
      if (std::string_view(held_).substr(held_.size() - n) == std::string_view(stop).substr(0, n)) {
        keep = n;
        break;
      }
    }
  }
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StopMatcher::flush() {
  std::string out;
  out.swap(held_);
  return out;
}

}  // namespace supportd::engine
