// One status line on stderr, redrawn in place, only when stderr is a terminal (so logs and
// pipes stay clean). Not thread-safe.
#pragma once

#include <string>

namespace supportd::bench {

class ProgressLine {
 public:
  explicit ProgressLine(bool wanted);
  ~ProgressLine();  // ends the line if one was drawn

  // Replaces the line with `text` (clipped to the terminal's width).
  void draw(const std::string& text);
  // Ends the line so later output starts on a fresh one. Idempotent.
  void finish();
  bool enabled() const { return enabled_; }

 private:
  bool enabled_;
  bool drawn_ = false;
  int width_ = 120;
};

}  // namespace supportd::bench
