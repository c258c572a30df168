// One turn at a time per conversation (see conversation_queue.h): the first turn starts at once,
// the next waits in its conversation's queue until leave() starts it.
#include "desk/conversation_queue.h"

#include <utility>

namespace supportd::desk {

bool ConversationQueue::enter(const std::string& session, std::function<void()> start) {
  {
    std::lock_guard lock(mutex_);
    auto [it, first] = in_flight_.try_emplace(session);
    if (!first) {
      if (it->second.waiting.size() >= max_waiting_) return false;
      it->second.waiting.push_back(std::move(start));
      return true;
    }
  }
  start();
  return true;
}

void ConversationQueue::leave(const std::string& session) {
  std::function<void()> next;
  {
    std::lock_guard lock(mutex_);
    const auto it = in_flight_.find(session);
    if (it == in_flight_.end()) return;
    if (it->second.waiting.empty()) {
      in_flight_.erase(it);
      return;
    }
    next = std::move(it->second.waiting.front());
    it->second.waiting.pop_front();
  }
  next();  // outside the lock: it may end at once and call leave() again
}

std::size_t ConversationQueue::busy() const {
  std::lock_guard lock(mutex_);
  return in_flight_.size();
}

}  // namespace supportd::desk
