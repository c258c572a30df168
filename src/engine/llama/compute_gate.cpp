// Turns at the process's cores for the engines' steps (see compute_gate.h).
#include "engine/llama/compute_gate.h"

namespace supportd::engine::llama {

ComputeGate::Turn ComputeGate::enter(sched::Priority priority) {
  const auto klass = static_cast<std::size_t>(priority);
  std::unique_lock lock(mutex_);
  const std::uint64_t ticket = issued_[klass]++;
  changed_.wait(lock, [&] {
    if (busy_ || served_[klass] != ticket) return false;
    for (std::size_t better = 0; better < klass; ++better) {
      if (issued_[better] != served_[better]) return false;
    }
    return true;
  });
  busy_ = true;
  ++served_[klass];
  return Turn(this);
}

void ComputeGate::leave() {
  {
    std::lock_guard lock(mutex_);
    busy_ = false;
  }
  changed_.notify_all();
}

ComputeGate::Foreground ComputeGate::foreground() {
  {
    std::lock_guard lock(mutex_);
    ++foreground_;
    ++foreground_entries_;
  }
  changed_.notify_all();  // an engine awaiting a gap looks at its inbox: it may be its request
  return Foreground(this);
}

void ComputeGate::leave_foreground() {
  bool gap = false;
  {
    std::lock_guard lock(mutex_);
    gap = --foreground_ == 0;
  }
  if (gap) changed_.notify_all();
}

bool ComputeGate::await_gap(std::chrono::steady_clock::duration timeout) {
  std::unique_lock lock(mutex_);
  const std::uint64_t entries = foreground_entries_;
  changed_.wait_for(lock, timeout,
                    [&] { return foreground_ == 0 || foreground_entries_ != entries; });
  return foreground_ == 0;
}

int ComputeGate::in_foreground() const {
  std::lock_guard lock(mutex_);
  return foreground_;
}

int ComputeGate::waiting() const {
  std::lock_guard lock(mutex_);
  std::uint64_t count = 0;
  for (std::size_t klass = 0; klass < issued_.size(); ++klass)
    count += issued_[klass] - served_[klass];
  return static_cast<int>(count);
}

ComputeGate& process_compute_gate() {
  static ComputeGate gate;
  return gate;
}

}  // namespace supportd::engine::llama
