// Calls a GenerationSink one event at a time, in order, from whichever thread delivers, even
// when a sink method re-enters its engine (a desk sink cancels its own request from inside
// on_text): what is delivered meanwhile is queued and runs after the method returns. After
// the end (done) nothing more reaches the sink.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "engine/request.h"

namespace supportd::engine::remote {

class SerialSink {
 public:
  explicit SerialSink(std::shared_ptr<GenerationSink> sink) : sink_(std::move(sink)) {}

  // Queues a piece of text (ignored after the end) and delivers what is queued.
  void text(std::string text);
  // Queues the end and delivers. False when the end was queued already (nothing is done).
  bool done(const Completion& completion);

 private:
  struct Event {
    std::string text;
    std::optional<Completion> end;
  };
  void drain(std::unique_lock<std::mutex>& lock);

  const std::shared_ptr<GenerationSink> sink_;
  std::mutex mutex_;
  std::deque<Event> queue_;  // guarded by mutex_
  bool draining_ = false;    // guarded by mutex_: a thread is calling the sink
  bool ended_ = false;       // guarded by mutex_: the end is queued or delivered
};

}  // namespace supportd::engine::remote
