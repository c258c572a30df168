// ProgressBar: redraws one line on stderr as work advances (only when stderr is a terminal)
// and finishes it with a newline.
#include "core/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace supportd {

ProgressBar::ProgressBar(std::string label, std::int64_t total)
    : label_(std::move(label)),
      total_(std::max<std::int64_t>(total, 1)),
      enabled_(isatty(STDERR_FILENO) != 0),
      started_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::update(std::int64_t done) {
  done_ = std::clamp<std::int64_t>(done, 0, total_);
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100) && done_ < total_) return;
  last_draw_ = now;
  draw();
}

void ProgressBar::draw() {
  if (!enabled_) return;
  constexpr int kWidth = 30;
  const double fraction = static_cast<double>(done_) / static_cast<double>(total_);
  const int filled = static_cast<int>(fraction * kWidth);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  const double eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0;
  std::fprintf(stderr, "\r%s [%.*s%*s] %3.0f%%  %lld/%lld  %.0fs left   ", label_.c_str(), filled,
               "##############################", kWidth - filled, "", fraction * 100,
               static_cast<long long>(done_), static_cast<long long>(total_), eta);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (finished_) return;
  finished_ = true;
  if (!enabled_) return;
  draw();
  std::fputc('\n', stderr);
}

}  // namespace supportd
