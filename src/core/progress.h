// A progress bar for long command-line work, drawn on stderr only when it is a terminal.
// Not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace supportd {

class ProgressBar {
 public:
  ProgressBar(std::string label, std::int64_t total);
  ~ProgressBar();
  // Sets the amount done; redraws at most ten times a second.
  void update(std::int64_t done);
  void advance(std::int64_t amount = 1) { update(done_ + amount); }
  // Draws the final state and ends the line.
  void finish();

 private:
  void draw();

  std::string label_;
  std::int64_t total_;
  std::int64_t done_ = 0;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace supportd
