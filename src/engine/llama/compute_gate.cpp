// Turns at the process's cores for the engines' steps (see compute_gate.h).
#include "engine/llama/compute_gate.h"

namespace supportd::engine::llama {

ComputeGate::Turn ComputeGate::enter(sched::Priority priority, bool prompt) {
  const auto klass = static_cast<std::size_t>(priority);
  const std::size_t prompts = 2 * klass;
  const std::size_t decodes = prompts + 1;
  const std::size_t lane = prompt ? prompts : decodes;
  auto waits = [this](std::size_t l) { return issued_[l] != served_[l]; };
  std::unique_lock lock(mutex_);
  const std::uint64_t ticket = issued_[lane]++;
  changed_.wait(lock, [&] {
    if (busy_ || served_[lane] != ticket) return false;
    for (std::size_t better = 0; better < prompts; ++better) {
      if (waits(better)) return false;
    }
    // Within the class: a prompt step first, unless the decode step waiting was passed once.
    return prompt ? !(waits(decodes) && passed_[klass]) : !(waits(prompts) && !passed_[klass]);
  });
  busy_ = true;
  ++served_[lane];
  // Served after this one, the waiting decode step's next passing is refused; served, the
  // next decode step may be passed once again.
  passed_[klass] = prompt && waits(decodes);
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
  for (std::size_t lane = 0; lane < issued_.size(); ++lane)
    count += issued_[lane] - served_[lane];
  return static_cast<int>(count);
}

SharedWork::SharedWork(ComputeGate& gate) : gate_(gate) {
  turn_.emplace(gate_.enter(sched::Priority::kNormal));
}

void SharedWork::yield() {
  turn_.reset();
  turn_.emplace(gate_.enter(sched::Priority::kNormal));
}

ComputeGate& process_compute_gate() {
  static ComputeGate gate;
  return gate;
}

}  // namespace supportd::engine::llama
