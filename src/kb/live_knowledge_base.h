// Hot reload: the live knowledge base of a directory, swapped for a new generation when
// `supportd kb import` publishes one, without restarting the server. Searches already running
// keep the generation they started with (shared ownership); new ones see the new one.
// Call reload() from an admin endpoint, or let a KnowledgeBaseWatcher poll.
// Thread-safe: every method may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "kb/knowledge_base.h"

namespace supportd::kb {

class LiveKnowledgeBase {
 public:
  // Opens the directory's live generation; fails like KnowledgeBase::open.
  static Result<std::unique_ptr<LiveKnowledgeBase>> open(const std::string& dir,
                                                         const OpenOptions& options = {});

  // The knowledge base in use now (never null).
  std::shared_ptr<const KnowledgeBase> current() const;

  // Loads the directory's live generation when it is not the one in use: true when a new one
  // was swapped in, false when nothing changed. On failure the one in use stays and the error
  // says why (file and line).
  Result<bool> reload();

  const std::string& directory() const { return directory_; }

 private:
  LiveKnowledgeBase(std::string dir, OpenOptions options)
      : directory_(std::move(dir)), options_(std::move(options)) {}

  // Constant after construction.
  const std::string directory_;
  const OpenOptions options_;

  std::mutex reload_mutex_;  // one reload at a time
  mutable std::mutex mutex_;
  std::shared_ptr<const KnowledgeBase> current_;  // guarded by mutex_
};

// Polls a directory's CURRENT file every `interval` and reloads on change. Reports each reload
// attempt that changed something or failed to `on_reload` (on the watcher's thread).
// Stops and joins its thread on destruction.
class KnowledgeBaseWatcher {
 public:
  KnowledgeBaseWatcher(LiveKnowledgeBase& live, std::chrono::milliseconds interval,
                       std::function<void(const Result<bool>&)> on_reload = {});
  ~KnowledgeBaseWatcher();
  KnowledgeBaseWatcher(const KnowledgeBaseWatcher&) = delete;
  KnowledgeBaseWatcher& operator=(const KnowledgeBaseWatcher&) = delete;

 private:
  void run();

  LiveKnowledgeBase& live_;
  const std::chrono::milliseconds interval_;
  const std::function<void(const Result<bool>&)> on_reload_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mutex_
  std::thread thread_;     // last: starts after the members above exist
};

}  // namespace supportd::kb
