// One engine computes at a time on the process's cores. llama.cpp's CPU threads meet in
// spinning barriers several times per layer; two engines computing at once (two model versions
// during a roll-out, a shadow, a candidate warming up) each run as many threads as there are
// cores, so the scheduler preempts threads inside barriers and every barrier waits a time slice:
// a step of milliseconds takes seconds (bench/rollout, 2026-12-05: no request started in a
// minute at 50/50 on two cores). Through the gate the engines' steps take turns instead, each
// with every core.
// Turns go to the best class waiting (a step's class is that of its best sequence), first come
// first served within a class: an engine with only low-class work (a shadow's copies) computes
// when no engine with callers' work waits, so a shadow does not slow the callers beyond the one
// step it may already be running.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <utility>

#include "sched/priority.h"

namespace supportd::engine::llama {

class ComputeGate {
 public:
  // Held while a step computes; leaving gives the turn to the next waiter.
  class Turn {
   public:
    explicit Turn(ComputeGate* gate) : gate_(gate) {}
    Turn(Turn&& other) noexcept : gate_(std::exchange(other.gate_, nullptr)) {}
    Turn& operator=(Turn&&) = delete;
    ~Turn() { release(); }
    // Ends the turn now (once; the destructor then does nothing).
    void release() {
      if (gate_ != nullptr) std::exchange(gate_, nullptr)->leave();
    }

   private:
    ComputeGate* gate_;
  };

  // Waits for the turn of a step of class `priority`: no step computing, none of a better
  // class waiting, and every earlier one of its class served.
  Turn enter(sched::Priority priority);

  // Steps waiting now (for tests and metrics).
  int waiting() const;

 private:
  void leave();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool busy_ = false;                                          // guarded by mutex_
  std::array<std::uint64_t, sched::kPriorityCount> issued_{};  // tickets per class, guarded
  std::array<std::uint64_t, sched::kPriorityCount> served_{};  // turns per class, guarded
};

// The gate every engine of this process computes through.
ComputeGate& process_compute_gate();

}  // namespace supportd::engine::llama
