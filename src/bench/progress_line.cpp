// The progress line (progress_line.h): redrawn with a carriage return and cleared on finish, only
// when stderr is a terminal.
#include "bench/progress_line.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace supportd::bench {

ProgressLine::ProgressLine(bool wanted) : enabled_(wanted && isatty(STDERR_FILENO) != 0) {
  winsize size{};
  if (enabled_ && ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 10)
    width_ = size.ws_col - 1;
}

ProgressLine::~ProgressLine() {
  finish();
}

void ProgressLine::draw(const std::string& text) {
  if (!enabled_) return;
  const std::string line = text.size() > static_cast<std::size_t>(width_)
                               ? text.substr(0, static_cast<std::size_t>(width_))
                               : text;
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (!enabled_ || !drawn_) return;
  std::fputc('\n', stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace supportd::bench
