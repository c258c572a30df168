// The thread tuner on given step times: all cores when faster, one thread when a core becomes
// busy, batch sizes judged separately, one core meaning one thread.
#include "engine/thread_tuner.h"

#include <gtest/gtest.h>

namespace supportd::engine {
namespace {

// Runs `steps` steps of `tokens` tokens where a step with t threads costs cost(t) ms; returns
// how many used each thread count.
template <typename Cost>
std::array<int, 3> run(ThreadTuner& tuner, int steps, int tokens, Cost cost) {
  std::array<int, 3> used{};
  for (int i = 0; i < steps; ++i) {
    const int t = tuner.choose(tokens);
    ++used[t];
    tuner.record(t, tokens, cost(t));
  }
  return used;
}

TEST(ThreadTuner, UsesAllCoresWhenTheyAreFaster) {
  ThreadTuner tuner(2);
  const auto used = run(tuner, 200, 8, [](int t) { return t == 2 ? 10.0 : 18.0; });
  EXPECT_GT(used[2], 180);
  EXPECT_EQ(tuner.best(8), 2);
}

TEST(ThreadTuner, FallsBackToOneThreadWhenACoreBecomesBusy) {
  ThreadTuner tuner(2);
  run(tuner, 100, 8, [](int t) { return t == 2 ? 10.0 : 18.0; });
  // A busy neighbour appears: two threads now wait at every barrier.
  const auto used = run(tuner, 200, 8, [](int t) { return t == 2 ? 60.0 : 20.0; });
  EXPECT_EQ(tuner.best(8), 1);
  EXPECT_GT(used[1], 150);
  // ...and recovers when the neighbour leaves.
  run(tuner, 200, 8, [](int t) { return t == 2 ? 10.0 : 18.0; });
  EXPECT_EQ(tuner.best(8), 2);
}

TEST(ThreadTuner, JudgesBatchSizesSeparately) {
  ThreadTuner tuner(2);
  run(tuner, 100, 1, [](int t) { return t == 2 ? 5.0 : 4.0; });
  run(tuner, 100, 256, [](int t) { return t == 2 ? 100.0 : 190.0; });
  EXPECT_EQ(tuner.best(1), 1);
  EXPECT_EQ(tuner.best(256), 2);
}

TEST(ThreadTuner, OneCoreMeansOneThread) {
  ThreadTuner tuner(1);
  EXPECT_EQ(tuner.choose(100), 1);
}

}  // namespace
}  // namespace supportd::engine
