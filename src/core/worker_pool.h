// A fixed set of threads running queued tasks in order of arrival: for work that must not run
// on an I/O thread (retrieval, store writes that may wait on a network). Bounded: post() fails
// when the queue is full, so overload is refused instead of piling up.
// Thread-safety: post() may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace supportd {

class WorkerPool {
 public:
  WorkerPool(std::string name, int threads, std::size_t max_queued);
  ~WorkerPool();  // runs what is queued, then joins
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Queues `task`; false when the queue is full or the pool is stopping.
  bool post(std::function<void()> task);
  std::size_t queued() const;

 private:
  void run();

  const std::string name_;
  const std::size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;  // guarded by mutex_
  bool stopping_ = false;                    // guarded by mutex_
  std::vector<std::thread> threads_;
};

}  // namespace supportd
