// Keeps an anomaly score at full value only where an anomaly starts or grows: a score that is
// not above every score of the last `window` points is damped. An anomaly that lasts is then
// reported once, at its onset (and again only if it gets worse), instead of once per point:
// the alert a person wants, and what NAB's scoring rewards (an early detection in a window
// counts; every further one outside it costs).
// Thread-safety: not thread-safe; one owner feeds it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

namespace supportd::obs::anomaly {

struct OnsetOptions {
  std::size_t window = 200;  // points a score must beat; 0 turns the filter off
  double damping = 0.5;      // factor of a score that does not
};

class OnsetFilter {
 public:
  explicit OnsetFilter(const OnsetOptions& options) : options_(options) {}

  // Returns `score` when it is above every score of the last `window` calls, else
  // `score * damping`; remembers `score` (undamped) either way.
  double filter(double score);

  // Whether the last score was kept at full value.
  bool last_was_onset() const { return onset_; }

  // Forgets the scores seen so far: the next score is compared with those after this call
  // only. For an alert that has cleared, so that the next incident is an onset again even if
  // it comes within `window` points of the last and is no worse.
  void forget() { maxima_.clear(); }

 private:
  OnsetOptions options_;
  std::uint64_t count_ = 0;
  // Decreasing maxima of the window: (call number, score); the front is the window's highest.
  std::deque<std::pair<std::uint64_t, double>> maxima_;
  bool onset_ = false;
};

}  // namespace supportd::obs::anomaly
