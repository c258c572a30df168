// Hot reload (live_knowledge_base.h): reload() opens the new live generation when CURRENT moved
// and swaps it in under the lock; the watcher polls on its own thread.
#include "kb/live_knowledge_base.h"

#include "kb/files/kb_files.h"

namespace supportd::kb {

Result<std::unique_ptr<LiveKnowledgeBase>> LiveKnowledgeBase::open(const std::string& dir,
                                                                   const OpenOptions& options) {
  auto kb = KnowledgeBase::open(dir, options);
  if (!kb) return kb.error();
  std::unique_ptr<LiveKnowledgeBase> live(new LiveKnowledgeBase(dir, options));
  live->current_ = std::move(*kb);
  return live;
}

std::shared_ptr<const KnowledgeBase> LiveKnowledgeBase::current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

Result<bool> LiveKnowledgeBase::reload() {
  std::lock_guard reloading(reload_mutex_);
  auto generation = current_generation(directory_);
  if (!generation) return generation.error();
  if (*generation == current()->info().directory) return false;
  auto kb = KnowledgeBase::open(directory_, options_);
  if (!kb) return kb.error();
  std::lock_guard lock(mutex_);
  current_ = std::move(*kb);
  return true;
}

KnowledgeBaseWatcher::KnowledgeBaseWatcher(LiveKnowledgeBase& live,
                                           std::chrono::milliseconds interval,
                                           std::function<void(const Result<bool>&)> on_reload)
    : live_(live),
      interval_(interval),
      on_reload_(std::move(on_reload)),
      thread_([this] { run(); }) {}

KnowledgeBaseWatcher::~KnowledgeBaseWatcher() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void KnowledgeBaseWatcher::run() {
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    const Result<bool> outcome = live_.reload();
    if (on_reload_ && (!outcome.ok() || *outcome)) on_reload_(outcome);
    lock.lock();
  }
}

}  // namespace supportd::kb
