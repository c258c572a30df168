// Finds stop strings in streamed text without ever emitting part of one: text that could still
// turn into a stop string is held back until the next piece decides it.
// Not thread-safe; one per request.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace supportd::engine {

class StopMatcher {
 public:
  explicit StopMatcher(std::vector<std::string> stops);

  // Appends `text`; returns the text that is safe to emit. After a stop string is found,
  // stopped() is true, the returned text ends just before it and further input is ignored.
  std::string push(std::string_view text);

  // Returns whatever is still held back (the stream ended for another reason).
  std::string flush();

  bool stopped() const { return stopped_; }

 private:
  std::vector<std::string> stops_;
  std::string held_;
  bool stopped_ = false;
};

}  // namespace supportd::engine
