// One-at-a-time, re-entrant-safe delivery to a GenerationSink (engine/remote/serial_sink.h).
#include "engine/remote/serial_sink.h"

namespace supportd::engine::remote {

void SerialSink::text(std::string text) {
  std::unique_lock lock(mutex_);
  if (ended_) return;
  queue_.push_back({std::move(text), std::nullopt});
  drain(lock);
}

bool SerialSink::done(const Completion& completion) {
  std::unique_lock lock(mutex_);
  if (ended_) return false;
  ended_ = true;
  queue_.push_back({{}, completion});
  drain(lock);
  return true;
}

void SerialSink::drain(std::unique_lock<std::mutex>& lock) {
  if (draining_) return;  // the thread calling the sink (maybe this one, re-entering) runs it
  draining_ = true;
  while (!queue_.empty()) {
    Event event = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    if (event.end) {
      sink_->on_done(*event.end);
    } else {
      sink_->on_text(event.text);
    }
    lock.lock();
  }
  draining_ = false;
}

}  // namespace supportd::engine::remote
