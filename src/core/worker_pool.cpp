// WorkerPool: threads that take tasks from one bounded queue under a mutex, in order of
// arrival, and drain it before stopping.
#include "core/worker_pool.h"

#include <spdlog/spdlog.h>

namespace supportd {

WorkerPool::WorkerPool(std::string name, int threads, std::size_t max_queued)
    : name_(std::move(name)), max_queued_(max_queued) {
  for (int i = 0; i < std::max(1, threads); ++i)
    threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_)
    t.join();
}

bool WorkerPool::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || tasks_.size() >= max_queued_) return false;
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

std::size_t WorkerPool::queued() const {
  std::lock_guard lock(mutex_);
  return tasks_.size();
}

void WorkerPool::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    try {
      task();
    } catch (const std::exception& e) {
      spdlog::error("{}: a task threw: {}", name_, e.what());
    }
  }
}

}  // namespace supportd
