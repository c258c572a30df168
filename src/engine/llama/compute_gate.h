// One engine computes at a time on the process's cores. llama.cpp's CPU threads meet in
// spinning barriers several times per layer; two engines computing at once (two model versions
// during a roll-out, a shadow, a candidate warming up) each run as many threads as there are
// cores, so the scheduler preempts threads inside barriers and every barrier waits a time slice:
// a step of milliseconds takes seconds (bench/rollout, 2026-12-05: no request started in a
// minute at 50/50 on two cores). Through the gate the engines' steps take turns instead, each
// with every core.
// Turns go to the best class waiting (a step's class is that of its best sequence), first come
// first served within a class, except that a step starting a prompt (one holding a prefill
// chunk of a request that has no token yet) goes before the steps of its class that only
// decode, each of which it may pass once: with two versions taking turns (a canary), a new
// request's prefill would otherwise wait behind the other version's decode step, a whole pass
// over its weights, and time to first token is what callers feel. A decode-only step waits at
// most one prompt step more than first come first served would make it.
// Background work (a shadow's copies: nobody waits for their answers) computes only in the
// gaps: an engine whose every request is background steps only while no request of any engine
// of the process is in the foreground (Foreground, held from submit to finish). Waiting for a
// turn at the gate is not enough for that: between two steps an engine with callers is not at
// the gate (it samples, streams, admits), and a background step taken then is a whole step of
// another model every caller waits for (bench/rollout, 2026-12-05: 10.4x the callers' p99
// TTFT with 100% shadowed onto a 3x larger model).
// Thread-safety: every method may be called from any thread.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
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

  // Held while a request someone waits for is in an engine (submitted, queued, running);
  // the last one leaving opens the gaps background work computes in.
  class Foreground {
   public:
    Foreground() = default;  // holds nothing
    explicit Foreground(ComputeGate* gate) : gate_(gate) {}
    Foreground(Foreground&& other) noexcept : gate_(std::exchange(other.gate_, nullptr)) {}
    Foreground& operator=(Foreground&& other) noexcept {
      if (this != &other) {
        release();
        gate_ = std::exchange(other.gate_, nullptr);
      }
      return *this;
    }
    ~Foreground() { release(); }
    // Leaves the foreground now (once; the destructor then does nothing).
    void release() {
      if (gate_ != nullptr) std::exchange(gate_, nullptr)->leave_foreground();
    }

   private:
    ComputeGate* gate_ = nullptr;
  };

  // Waits for the turn of a step of class `priority`: no step computing, none of a better
  // class waiting, and every earlier one of its class served, save that a step starting a
  // prompt (`prompt`) goes before a decode-only step of its class that was not yet passed once.
  Turn enter(sched::Priority priority, bool prompt = false);

  // A request entering the foreground (see Foreground).
  Foreground foreground();

  // Waits up to `timeout` for a gap: no request of any engine in the foreground. True when
  // there is one (a background step may then enter; a request arriving meanwhile waits for that
  // one step); false when the time ran out or a request entered the foreground meanwhile (it
  // may be the caller's own engine's: it then looks at its inbox).
  bool await_gap(std::chrono::steady_clock::duration timeout);

  // Requests in the foreground now (for tests and metrics).
  int in_foreground() const;

  // Steps waiting now (for tests and metrics).
  int waiting() const;

 private:
  void leave();
  void leave_foreground();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool busy_ = false;                     // guarded by mutex_
  int foreground_ = 0;                    // guarded by mutex_
  std::uint64_t foreground_entries_ = 0;  // guarded by mutex_
  // Two lanes per class, first come first served in each: 2 * class for the steps starting a
  // prompt, 2 * class + 1 for the decode-only ones.
  static constexpr std::size_t kLanes = 2 * sched::kPriorityCount;
  std::array<std::uint64_t, kLanes> issued_{};  // tickets per lane, guarded by mutex_
  std::array<std::uint64_t, kLanes> served_{};  // turns per lane, guarded by mutex_
  // Per class: the first decode-only step waiting was passed by a prompt step already.
  std::array<bool, sched::kPriorityCount> passed_{};  // guarded by mutex_
};

// CPU work of another kind done in turns with the engines' steps (a model file hashed and
// loaded while other versions serve): it holds a turn while it works and gives the turn back
// between pieces (yield), so that no step computes beside it, where llama.cpp's spinning
// barriers would lose time slices to it, and a step waits at most one piece. Its turns are the
// normal class's decode lane: the callers' prompts pass it. Not thread-safe: one thread's work.
class SharedWork {
 public:
  // Takes the first turn.
  explicit SharedWork(ComputeGate& gate);
  // Lets the steps waiting now go first, then takes a turn again.
  void yield();

 private:
  ComputeGate& gate_;
  std::optional<ComputeGate::Turn> turn_;
};

// The gate every engine of this process computes through.
ComputeGate& process_compute_gate();

}  // namespace supportd::engine::llama
