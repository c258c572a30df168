// The compute gate (engine/llama/compute_gate.h): one step at a time, the best class waiting
// first, first come first served within a class but for a step starting a prompt, which passes
// a decode-only step once; gaps for background work open only while no
// request is in the foreground; other work (a model being loaded) takes turns in pieces.
#include "engine/llama/compute_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace supportd::engine::llama {
namespace {

using sched::Priority;

// Spins (bounded) until `gate` has `count` steps waiting.
bool wait_for_waiting(const ComputeGate& gate, int count) {
  for (int i = 0; i < 5000; ++i) {
    if (gate.waiting() == count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(ComputeGate, OneStepAtATime) {
  ComputeGate gate;
  ComputeGate::Turn held = gate.enter(Priority::kNormal);
  std::atomic<bool> entered{false};
  std::thread other([&] {
    const ComputeGate::Turn turn = gate.enter(Priority::kHigh);
    entered = true;
  });
  ASSERT_TRUE(wait_for_waiting(gate, 1));
  EXPECT_FALSE(entered);  // even a better class waits for the step computing
  held.release();
  other.join();
  EXPECT_TRUE(entered);
  EXPECT_EQ(gate.waiting(), 0);
}

// A step queued at the gate: its name, class, and whether it starts a prompt.
struct Arrival {
  std::string name;
  Priority priority;
  bool prompt = false;
};

// The order in which `arrivals`, queued one after the other behind a step computing, get their
// turns once it ends.
std::vector<std::string> turns_of(const std::vector<Arrival>& arrivals) {
  ComputeGate gate;
  ComputeGate::Turn held = gate.enter(Priority::kNormal);
  std::mutex mutex;
  std::vector<std::string> order;
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    threads.emplace_back([&, i] {
      const ComputeGate::Turn turn = gate.enter(arrivals[i].priority, arrivals[i].prompt);
      std::lock_guard lock(mutex);
      order.push_back(arrivals[i].name);
    });
    EXPECT_TRUE(wait_for_waiting(gate, static_cast<int>(i) + 1));
  }
  held.release();
  for (auto& thread : threads)
    thread.join();
  return order;
}

TEST(ComputeGate, TheBestClassWaitingGoesFirstThenFirstComeFirstServed) {
  EXPECT_EQ(turns_of({{"low", Priority::kLow},
                      {"normal A", Priority::kNormal},
                      {"high", Priority::kHigh},
                      {"normal B", Priority::kNormal}}),
            (std::vector<std::string>{"high", "normal A", "normal B", "low"}));
}

TEST(ComputeGate, AStepStartingAPromptPassesADecodeStepOfItsClassOnce) {
  // Decode A is passed once (by prompt A), then goes before prompt B, which then passes decode
  // B; a prompt never goes before a better class.
  EXPECT_EQ(turns_of({{"decode A", Priority::kNormal, false},
                      {"prompt A", Priority::kNormal, true},
                      {"prompt B", Priority::kNormal, true},
                      {"decode low", Priority::kLow, false},
                      {"prompt low", Priority::kLow, true},
                      {"decode B", Priority::kNormal, false}}),
            (std::vector<std::string>{"prompt A", "decode A", "prompt B", "decode B", "prompt low",
                                      "decode low"}));
}

TEST(ComputeGate, SharedWorkComputesAloneAndLetsTheWaitingStepsGoBetweenPieces) {
  ComputeGate gate;
  SharedWork work(gate);  // a model file being loaded, say
  std::atomic<int> steps{0};
  std::thread step([&] {
    const ComputeGate::Turn turn = gate.enter(Priority::kNormal);
    ++steps;
  });
  ASSERT_TRUE(wait_for_waiting(gate, 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(steps.load(), 0);  // no step computes beside the work
  work.yield();                // between two pieces: the step waiting goes, then the work again
  EXPECT_EQ(steps.load(), 1);
  step.join();
  std::atomic<bool> entered{false};
  std::thread later([&] {
    const ComputeGate::Turn turn = gate.enter(Priority::kHigh);
    entered = true;
  });
  ASSERT_TRUE(wait_for_waiting(gate, 1));
  EXPECT_FALSE(entered);  // the work holds its turn again
  work.yield();
  EXPECT_TRUE(entered);
  later.join();
}

TEST(ComputeGate, ALowerClassComputesOnceNoBetterOneWaits) {
  ComputeGate gate;
  std::atomic<bool> done{false};
  std::thread low([&] {
    const ComputeGate::Turn turn = gate.enter(Priority::kLow);
    done = true;
  });
  low.join();  // nothing else computes or waits: no wait at all
  EXPECT_TRUE(done);
}

TEST(ComputeGate, AGapOpensWhenTheLastRequestLeavesTheForeground) {
  ComputeGate gate;
  EXPECT_TRUE(gate.await_gap(std::chrono::milliseconds(0)));  // nobody in the foreground
  ComputeGate::Foreground first = gate.foreground();
  ComputeGate::Foreground second = gate.foreground();
  EXPECT_EQ(gate.in_foreground(), 2);
  EXPECT_FALSE(gate.await_gap(std::chrono::milliseconds(5)));
  first.release();
  first.release();  // once only
  EXPECT_EQ(gate.in_foreground(), 1);
  EXPECT_FALSE(gate.await_gap(std::chrono::milliseconds(5)));
  std::atomic<bool> gap{false};
  std::thread background([&] { gap = gate.await_gap(std::chrono::hours(1)); });
  second = ComputeGate::Foreground();  // assigning nothing leaves the foreground too
  background.join();                   // woken by the last one leaving, not by the hour
  EXPECT_TRUE(gap);
  EXPECT_EQ(gate.in_foreground(), 0);
}

TEST(ComputeGate, AnAwaitedGapEndsWhenARequestEntersTheForeground) {
  ComputeGate gate;
  ComputeGate::Foreground caller = gate.foreground();
  std::atomic<bool> waiting{false};
  std::atomic<bool> gap{true};
  std::thread background([&] {
    waiting = true;
    gap = gate.await_gap(std::chrono::hours(1));
  });
  while (!waiting)
    std::this_thread::yield();
  // Another request arriving (perhaps at the waiting engine itself) ends the wait at once, so
  // that engine looks at its inbox; there is no gap.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ComputeGate::Foreground arriving = gate.foreground();
  background.join();
  EXPECT_FALSE(gap);
  EXPECT_EQ(gate.in_foreground(), 2);
}

// Many threads of every class taking turns over and over: no two turns overlap, and each turn
// sees every write of the turns before it (plain memory, ordered by the gate alone: under
// ThreadSanitizer, `make test-tsan`, a turn not ordered after the last one is a reported race).
TEST(ComputeGate, TurnsOfManyThreadsNeverOverlapAndSeeEachOthersWrites) {
  ComputeGate gate;
  constexpr int kThreads = 6;
  constexpr int kTurns = 200;
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  long long steps = 0;  // written only inside a turn
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const auto priority = static_cast<Priority>(t % sched::kPriorityCount);
      for (int i = 0; i < kTurns; ++i) {
        const ComputeGate::Turn turn = gate.enter(priority);
        if (inside.fetch_add(1, std::memory_order_relaxed) != 0) overlapped = true;
        ++steps;
        inside.fetch_sub(1, std::memory_order_relaxed);
      }
    });
  }
  for (auto& thread : threads)
    thread.join();
  EXPECT_FALSE(overlapped);
  EXPECT_EQ(steps, static_cast<long long>(kThreads) * kTurns);
  EXPECT_EQ(gate.waiting(), 0);
}

}  // namespace
}  // namespace supportd::engine::llama
