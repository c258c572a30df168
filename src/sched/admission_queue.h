// Requests waiting to start, and the order in which they start: by priority class, first come
// first served within a class. Pure policy, no model: unit-testable on its own.
// Not thread-safe; owned by the engine thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <string>

#include "sched/priority.h"

namespace supportd::sched {

using Clock = std::chrono::steady_clock;

struct Ticket {
  std::uint64_t id = 0;
  Priority priority = Priority::kNormal;
  std::string tenant;
  Clock::time_point arrived;
  int cells = 0;  // KV cells the request needs to run to completion
};

class AdmissionQueue {
 public:
  void push(Ticket ticket);
  // Removes a waiting request; false when it is not waiting.
  bool erase(std::uint64_t id);
  // The request that should start next, or null when none waits.
  const Ticket* next() const;
  // Removes next().  REQUIRES: !empty().
  Ticket pop();

  bool empty() const { return size() == 0; }
  std::size_t size() const;
  std::size_t size(Priority priority) const { return classes_[static_cast<int>(priority)].size(); }

 private:
  std::deque<Ticket> classes_[kPriorityCount];
};

}  // namespace supportd::sched
