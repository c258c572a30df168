// TieredSessionStore's write-behind thread: journal -> PostgreSQL, journal -> stale Redis
// copies, and forgetting idle sessions that PostgreSQL holds.
#include <spdlog/spdlog.h>

#include "store/tiered_session_store.h"

namespace supportd::store {

void TieredSessionStore::wake_writer() {
  {
    std::lock_guard lock(writer_mutex_);
    writer_work_ = true;
  }
  writer_wake_.notify_one();
}

void TieredSessionStore::write_behind_loop() {
  std::int64_t last_forget = 0;
  for (;;) {
    {
      std::unique_lock lock(writer_mutex_);
      if (stopping_) return;
      writer_work_ = false;
    }
    bool progress = write_behind_pass();
    const std::int64_t now = unix_ms();
    if (now - last_forget > 60'000) {
      last_forget = now;
      Result<std::int64_t> forgotten =
          journal_->forget_idle(now - options_.local_retention.count());
      if (!forgotten) {
        spdlog::warn("store: cannot trim the journal: {}", forgotten.error().message);
      }
    }
    std::unique_lock lock(writer_mutex_);
    writer_passed_.notify_all();
    if (stopping_) return;
    if (!progress) {
      // Nothing written (idle, or a server down): sleep until new work or the next retry.
      writer_wake_.wait_for(lock, options_.write_behind_idle,
                            [&] { return stopping_ || writer_work_; });
    }
  }
}

bool TieredSessionStore::write_behind_pass() {
  bool progress = false;
  // PostgreSQL: cheap when the breaker is open (no network, no journal read).
  if (archive_.connect().ok()) {
    Result<std::vector<std::string>> keys = journal_->pending_keys(256);
    std::vector<PendingSession> batch;
    std::size_t budget = options_.batch_messages;
    for (const std::string& key : keys ? *keys : std::vector<std::string>()) {
      if (budget == 0) break;
      // Under the session's lock: an append in progress is not read before it is settled.
      std::lock_guard lock(lock_for(key));
      Result<std::optional<PendingSession>> pending = journal_->pending_for(key, budget);
      if (!pending) {
        spdlog::error("store: cannot read the journal: {}", pending.error().message);
        break;
      }
      if (!*pending) continue;
      budget -= std::min(budget, (*pending)->view.recent.size());
      batch.push_back(std::move(**pending));
    }
    if (!keys) spdlog::error("store: cannot read the journal: {}", keys.error().message);
    if (!batch.empty()) {
      Result<std::vector<PostgresArchive::Conflict>> written = archive_.write(batch);
      if (written) {
        // A conflicting message was not written: give it a new seq_id, write it next pass.
        std::vector<std::vector<bool>> skip(batch.size());
        for (const PostgresArchive::Conflict& c : *written) {
          skip[c.session].resize(batch[c.session].view.recent.size(), false);
          skip[c.session][c.message] = true;
          const std::string key = session_key(batch[c.session].view.conversation.session);
          std::lock_guard lock(lock_for(key));
          Result<std::int64_t> moved = journal_->move_to_end(
              key, batch[c.session].view.recent[c.message], c.archived_last, unix_ms());
          if (moved && *moved > 0) moved_messages_.fetch_add(1);
        }
        std::int64_t messages = 0;
        for (std::size_t s = 0; s < batch.size(); ++s) {
          if (!skip[s].empty()) {
            std::vector<Message> kept;
            for (std::size_t i = 0; i < batch[s].view.recent.size(); ++i) {
              if (!skip[s][i]) kept.push_back(std::move(batch[s].view.recent[i]));
            }
            batch[s].view.recent = std::move(kept);
          }
          messages += static_cast<std::int64_t>(batch[s].view.recent.size());
        }
        if (Status status = journal_->mark_archived(batch); !status) {
          // Written, not recorded: the next pass writes the same rows again, harmlessly.
          spdlog::error("store: cannot record archived messages: {}", status.error().message);
        } else {
          archived_messages_.fetch_add(messages);
          progress = true;
        }
      } else if (written.error().code != ErrorCode::kUnavailable) {
        spdlog::error("store: writing behind to PostgreSQL failed: {}", written.error().message);
      }
    }
  }
  // Redis copies that missed writes while Redis was down.
  if (redis_.available()) {
    Result<std::vector<std::string>> stale = journal_->stale_caches(64);
    if (stale) {
      for (const std::string& key : *stale) {
        std::lock_guard lock(lock_for(key));
        progress = publish(key) || progress;
        if (!redis_.available()) break;
      }
    }
  } else {
    // A probe: an idle store still notices that Redis is back.
    (void)redis_.command({"PING"});
  }
  return progress;
}

Status TieredSessionStore::flush(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    Result<PendingCounts> counts = journal_->pending_counts();
    if (!counts) return counts.error();
    if (counts->sessions == 0 && counts->stale_caches == 0) return {};
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error::make(ErrorCode::kUnavailable,
                         std::to_string(counts->messages) + " messages of " +
                             std::to_string(counts->sessions) +
                             " sessions are not in PostgreSQL yet, " +
                             std::to_string(counts->stale_caches) + " Redis copies are stale");
    }
    wake_writer();
    std::unique_lock lock(writer_mutex_);
    writer_passed_.wait_until(
        lock, std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(50)));
  }
}

}  // namespace supportd::store
