// A GenerationSink for tests: records everything and lets the test wait for the end.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "engine/request.h"

namespace supportd::testing {

class CollectSink : public engine::GenerationSink {
 public:
  void on_text(std::string_view text) override {
    std::lock_guard lock(mutex_);
    text_ += text;
    pieces_.emplace_back(text);
    cv_.notify_all();
  }
  void on_done(const engine::Completion& completion) override {
    std::lock_guard lock(mutex_);
    completion_ = completion;
    ++done_count_;
    cv_.notify_all();
  }
  // Waits for on_done; false on timeout.
  bool wait(std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return done_count_ > 0; });
  }
  // Waits until at least `n` pieces of text arrived.
  bool wait_pieces(std::size_t n, std::chrono::milliseconds timeout = std::chrono::seconds(60)) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return pieces_.size() >= n || done_count_ > 0; });
  }
  std::string text() {
    std::lock_guard lock(mutex_);
    return text_;
  }
  std::vector<std::string> pieces() {
    std::lock_guard lock(mutex_);
    return pieces_;
  }
  engine::Completion completion() {
    std::lock_guard lock(mutex_);
    return completion_;
  }
  int done_count() {
    std::lock_guard lock(mutex_);
    return done_count_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string text_;
  std::vector<std::string> pieces_;
  engine::Completion completion_;
  int done_count_ = 0;
};

}  // namespace supportd::testing
