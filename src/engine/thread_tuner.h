// Chooses how many compute threads each engine step uses, by measurement. On a quiet machine
// all cores win; beside a busy process, threads that wait for a descheduled sibling at every
// barrier lose badly (measured: 2 threads beside a busy core decode at half the speed of 1).
// Step times are compared per batch-size bucket (powers of two), with an exponential average
// per thread count; every `explore_period` steps of a bucket one step tries the runner-up.
// Not thread-safe; owned by the engine thread.
#pragma once

#include <array>
#include <vector>

namespace supportd::engine {

class ThreadTuner {
 public:
  static constexpr int kBuckets = 12;

  explicit ThreadTuner(int max_threads, int explore_period = 20);

  // Threads for a step that carries `tokens` tokens.
  int choose(int tokens);
  // What that step cost.
  void record(int threads, int tokens, double milliseconds);

  // The thread count currently believed best for `tokens` (for stats).
  int best(int tokens) const;

 private:
  struct Estimate {
    double ms = 0;
    int samples = 0;
    long last_step = -1;
  };
  static int bucket(int tokens);

  int max_threads_;
  int explore_period_;
  long steps_ = 0;
  std::array<int, kBuckets> bucket_steps_{};
  std::vector<std::array<Estimate, kBuckets>> estimates_;  // [threads - 1][bucket]
};

}  // namespace supportd::engine
