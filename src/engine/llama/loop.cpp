// The engine thread's loop: take requests from the inbox, admit, step, finish, publish stats.
#include "engine/llama/loop.h"

#include <algorithm>
#include <future>

#include <spdlog/spdlog.h>

#include "ggml-cpu.h"

namespace supportd::engine::llama {
namespace {

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

std::vector<int> range(int from, int to) {
  std::vector<int> ids;
  for (int i = from; i < to; ++i)
    ids.push_back(i);
  return ids;
}

}  // namespace

LlamaEngine::Loop::Loop(LlamaEngine& engine, llama_context* context, ggml_threadpool* threadpool,
                        int pool_threads)
    : engine_(engine),
      model_(*engine.model_),
      context_(context),
      memory_(llama_get_memory(context)),
      options_(engine.options_),
      scheduler_(engine.options_.scheduling),
      prefix_cache_(range(engine.options_.parallel,
                          engine.options_.parallel + engine.options_.prefix_cache_entries),
                    static_cast<std::size_t>(engine.options_.prefix_cache_cells)),
      threadpool_(threadpool),
      tuner_(pool_threads) {
  threads_ = pool_threads;
  free_seq_ids_ = range(0, options_.parallel);
  std::reverse(free_seq_ids_.begin(), free_seq_ids_.end());
  batch_ = llama_batch_init(std::max(options_.step_tokens, options_.parallel), 0, 1);
  counters_.kv_cells_total = options_.context_cells;
}

LlamaEngine::Loop::~Loop() {
  llama_batch_free(batch_);
  llama_free(context_);
  ggml_threadpool_free(threadpool_);
}

void LlamaEngine::Loop::enqueue(std::unique_ptr<Sequence> sequence) {
  {
    std::lock_guard lock(inbox_mutex_);
    submitted_.push_back(std::move(sequence));
  }
  inbox_cv_.notify_one();
}

void LlamaEngine::Loop::cancel(RequestId id) {
  {
    std::lock_guard lock(inbox_mutex_);
    cancelled_.push_back(id);
  }
  inbox_cv_.notify_one();
}

void LlamaEngine::Loop::run_on_engine(const std::function<void()>& task) {
  std::promise<void> done;
  {
    std::lock_guard lock(inbox_mutex_);
    if (stop_requested_) return;
    tasks_.push_back([&] {
      task();
      done.set_value();
    });
  }
  inbox_cv_.notify_one();
  done.get_future().wait();
}

void LlamaEngine::Loop::request_stop() {
  {
    std::lock_guard lock(inbox_mutex_);
    stop_requested_ = true;
  }
  inbox_cv_.notify_one();
}

EngineStats LlamaEngine::Loop::stats() const {
  std::lock_guard lock(stats_mutex_);
  return published_;
}

void LlamaEngine::Loop::run() {
  for (;;) {
    // Sleep only when nothing runs and nothing waits; a waiting batch window needs a wake-up.
    const bool idle = running_.empty() && scheduler_.empty();
    take_inbox(idle);
    {
      std::lock_guard lock(inbox_mutex_);
      if (stop_requested_) break;
    }
    expire_deadlines();
    erase_finished();
    admit();
    engine_.admission_.set_saturated(free_seq_ids_.empty() || !scheduler_.empty());
    if (!running_.empty()) {
      step();
    } else if (!scheduler_.empty()) {
      // Waiting without running: a dynamic-batching window is open. Nap briefly.
      std::unique_lock lock(inbox_mutex_);
      inbox_cv_.wait_for(lock, std::chrono::milliseconds(2));
    }
    erase_finished();
    publish_stats();
  }
  // Shutdown: everything still queued or running ends as cancelled.
  take_inbox(false);
  for (auto& sequence : running_)
    finish(*sequence, FinishReason::kCancelled);
  erase_finished();
  for (auto& [id, sequence] : waiting_) {
    leave_queue(*sequence);
    finish(*sequence, FinishReason::kCancelled);
  }
  waiting_.clear();
  publish_stats();
  std::lock_guard lock(inbox_mutex_);
  for (auto& task : tasks_)
    task();
  tasks_.clear();
}

void LlamaEngine::Loop::take_inbox(bool wait) {
  std::vector<std::unique_ptr<Sequence>> submitted;
  std::vector<RequestId> cancelled;
  std::vector<std::function<void()>> tasks;
  {
    std::unique_lock lock(inbox_mutex_);
    if (wait) {
      inbox_cv_.wait(lock, [&] {
        return stop_requested_ || !submitted_.empty() || !cancelled_.empty() || !tasks_.empty();
      });
    }
    submitted.swap(submitted_);
    cancelled.swap(cancelled_);
    tasks.swap(tasks_);
  }
  for (auto& sequence : submitted) {
    scheduler_.push({sequence->id, sequence->request.priority, sequence->request.tenant,
                     sequence->submitted, sequence->cells});
    waiting_.emplace(sequence->id, std::move(sequence));
  }
  for (RequestId id : cancelled) {
    if (auto it = waiting_.find(id); it != waiting_.end()) {
      scheduler_.erase(id);
      leave_queue(*it->second);
      finish(*it->second, FinishReason::kCancelled);
      waiting_.erase(it);
      continue;
    }
    for (auto& sequence : running_) {
      if (sequence->id == id && sequence->sink) finish(*sequence, FinishReason::kCancelled);
    }
  }
  for (auto& task : tasks)
    task();
}

void LlamaEngine::Loop::expire_deadlines() {
  // A deadline is the latest time a request may start; one still waiting then is refused.
  const auto now = Clock::now();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Sequence& s = *it->second;
    if (s.request.deadline && *s.request.deadline <= now && !s.has_first_token) {
      scheduler_.erase(it->first);
      leave_queue(s);
      finish(s, FinishReason::kDeadline);
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
}

void LlamaEngine::Loop::finish(Sequence& s, FinishReason reason, Error error) {
  if (!s.sink) return;  // already finished
  const bool normal = reason == FinishReason::kStop || reason == FinishReason::kLength;
  if (normal && !s.stop.stopped()) {
    std::string tail = s.stop.push(s.utf8.finish());
    if (!s.stop.stopped()) tail += s.stop.flush();
    if (!tail.empty()) s.sink->on_text(tail);
  }
  if (s.seq_id >= 0) release_cells(s, normal);
  if (normal) engine_.admission_.record_finish();

  const auto now = Clock::now();
  Completion completion;
  completion.reason = reason;
  completion.error = std::move(error);
  completion.usage.prompt_tokens = static_cast<int>(s.prompt_size);
  completion.usage.completion_tokens = s.generated;
  completion.usage.cached_tokens = static_cast<int>(s.reused);
  completion.timings.total_ms = ms_between(s.submitted, now);
  const bool was_admitted = s.admitted != Clock::time_point{};
  completion.timings.queued_ms = ms_between(s.submitted, was_admitted ? s.admitted : now);
  completion.timings.first_token_ms =
      s.has_first_token ? ms_between(s.submitted, s.first_token) : -1;
  auto sink = std::move(s.sink);
  sink->on_done(completion);
}

void LlamaEngine::Loop::leave_queue(Sequence& s) {
  if (!s.counted_waiting) return;
  s.counted_waiting = false;
  engine_.admission_.left_queue(s.request.priority);
}

void LlamaEngine::Loop::erase_finished() {
  std::erase_if(running_, [](const std::unique_ptr<Sequence>& s) { return !s->sink; });
}

void LlamaEngine::Loop::publish_stats() {
  EngineStats snapshot = counters_;
  snapshot.running = static_cast<int>(running_.size());
  snapshot.waiting = static_cast<int>(scheduler_.size());
  for (int p = 0; p < kPriorityCount; ++p) {
    snapshot.waiting_by_priority[p] = static_cast<int>(scheduler_.size(static_cast<Priority>(p)));
  }
  std::int64_t used = static_cast<std::int64_t>(prefix_cache_.cells());
  for (const auto& s : running_)
    used += static_cast<std::int64_t>(s->n_past - std::min(s->n_past, s->shared));
  snapshot.kv_cells_used = used;
  snapshot.prefix_cache_tokens = static_cast<std::int64_t>(prefix_cache_.cells());
  std::lock_guard lock(stats_mutex_);
  published_ = snapshot;
}

void LlamaEngine::Loop::clear_prefix_cache() {
  for (int id : prefix_cache_.clear())
    llama_memory_seq_rm(memory_, id, -1, -1);
  publish_stats();
}

int LlamaEngine::Loop::sequences_holding_cells() const {
  int holding = 0;
  for (int id = 0; id < options_.parallel; ++id) {
    if (llama_memory_seq_pos_max(memory_, id) >= 0) ++holding;
  }
  return holding;
}

}  // namespace supportd::engine::llama
