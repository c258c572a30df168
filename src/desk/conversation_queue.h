// The turns of one conversation run one at a time, in the order they arrived, so every answer
// follows its question in the transcript; turns of different conversations run in parallel.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace supportd::desk {

class ConversationQueue {
 public:
  // At most `max_waiting` turns of one conversation wait behind the one in flight.
  explicit ConversationQueue(std::size_t max_waiting) : max_waiting_(max_waiting) {}

  // Calls `start` now (on this thread) when `session` has no turn in flight, else once the
  // turns ahead of it have left. False, and `start` is dropped, when the queue is full.
  bool enter(const std::string& session, std::function<void()> start);
  // The turn in flight for `session` ended (exactly once per started turn): starts the next.
  void leave(const std::string& session);
  // Conversations with a turn in flight (for tests and stats).
  std::size_t busy() const;

 private:
  struct Conversation {
    std::deque<std::function<void()>> waiting;
  };
  const std::size_t max_waiting_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Conversation> in_flight_;  // guarded by mutex_
};

}  // namespace supportd::desk
