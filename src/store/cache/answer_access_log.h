// Which answer-cache keys were served, so that a restarted process can pre-warm its L1 with
// the hottest answers (answer_cache.h: prewarm). Uses are counted in memory and appended to a
// file as "key count" lines on flush() (or every 4096 records); when the file passes max_bytes
// it is rewritten with the `keep` most used keys. Lines of a bare key (older files) count once.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/status.h"

namespace supportd::store {

class AnswerAccessLog {
 public:
  struct Options {
    std::filesystem::path path;  // e.g. {data_dir}/answer-access.log
    std::size_t max_bytes = 16 << 20;
    std::size_t keep = 10000;
  };

  // Creates the file's directory; the file itself appears on the first flush.
  static Result<std::unique_ptr<AnswerAccessLog>> open(const Options& options);
  // Flushes what is buffered.
  ~AnswerAccessLog();

  // Notes one use of `key`. Keys with whitespace are ignored (they are not answer keys).
  void record(std::string_view key);
  // Appends the buffered records to the file, compacting it when it is too large.
  Status flush();
  // The `n` most used keys, most used first (ties by key), from the file and the buffer.
  Result<std::vector<std::string>> hottest(std::size_t n);

 private:
  explicit AnswerAccessLog(const Options& options) : options_(options) {}
  Status flush_locked();
  Status compact_locked();

  const Options options_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::int64_t> buffer_;  // uses not yet written; guarded by mutex_
  std::size_t buffered_ = 0;                              // records in buffer_; guarded by mutex_
};

}  // namespace supportd::store
