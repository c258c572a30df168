// Choosing each step's thread count from measured step times per batch-size bucket
// (see thread_tuner.h).
#include "engine/thread_tuner.h"

#include <algorithm>
#include <bit>

namespace supportd::engine {

ThreadTuner::ThreadTuner(int max_threads, int explore_period)
    : max_threads_(std::max(1, max_threads)),
      explore_period_(std::max(2, explore_period)),
      estimates_(static_cast<std::size_t>(max_threads_)) {}

int ThreadTuner::bucket(int tokens) {
  const unsigned n = static_cast<unsigned>(std::max(1, tokens));
  return std::min(kBuckets - 1, static_cast<int>(std::bit_width(n - 1)));
}

int ThreadTuner::best(int tokens) const {
  const int b = bucket(tokens);
  int best = max_threads_;
  double best_ms = 0;
  for (int t = 1; t <= max_threads_; ++t) {
    const Estimate& e = estimates_[t - 1][b];
    if (e.samples == 0) continue;
    if (best_ms == 0 || e.ms < best_ms) {
      best_ms = e.ms;
      best = t;
    }
  }
  return best;
}

int ThreadTuner::choose(int tokens) {
  ++steps_;
  if (max_threads_ == 1) return 1;
  const int b = bucket(tokens);
  const int round = ++bucket_steps_[b];
  // Measure every candidate a couple of times first, most threads first.
  for (int t = max_threads_; t >= 1; --t) {
    if (estimates_[t - 1][b].samples < 2) return t;
  }
  const int leader = best(tokens);
  if (round % explore_period_ != 0) return leader;
  // Explore: the candidate measured longest ago.
  int stalest = leader;
  long oldest = steps_;
  for (int t = 1; t <= max_threads_; ++t) {
    if (t != leader && estimates_[t - 1][b].last_step < oldest) {
      oldest = estimates_[t - 1][b].last_step;
      stalest = t;
    }
  }
  return stalest;
}

void ThreadTuner::record(int threads, int tokens, double milliseconds) {
  if (threads < 1 || threads > max_threads_) return;
  Estimate& e = estimates_[threads - 1][bucket(tokens)];
  e.ms = e.samples == 0 ? milliseconds : e.ms + 0.3 * (milliseconds - e.ms);
  ++e.samples;
  e.last_step = steps_;
}

}  // namespace supportd::engine
