#include "sched/admission_queue.h"

#include <algorithm>

namespace supportd::sched {

void AdmissionQueue::push(Ticket ticket) {
  classes_[static_cast<int>(ticket.priority)].push_back(std::move(ticket));
}

bool AdmissionQueue::erase(std::uint64_t id) {
  for (auto& queue : classes_) {
    auto it = std::find_if(queue.begin(), queue.end(), [&](const Ticket& t) { return t.id == id; });
    if (it != queue.end()) {
      queue.erase(it);
      return true;
    }
  }
  return false;
}

const Ticket* AdmissionQueue::next() const {
  for (const auto& queue : classes_) {
    if (!queue.empty()) return &queue.front();
  }
  return nullptr;
}

Ticket AdmissionQueue::pop() {
  for (auto& queue : classes_) {
    if (!queue.empty()) {
      Ticket t = std::move(queue.front());
      queue.pop_front();
      return t;
    }
  }
  return {};
}

std::size_t AdmissionQueue::size() const {
  std::size_t n = 0;
  for (const auto& queue : classes_)
    n += queue.size();
  return n;
}

}  // namespace supportd::sched
