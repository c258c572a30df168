// The engine thread's loop: take requests from the inbox, admit, step, finish, publish stats.
// (Its questions to sched/ and the deadlines it refuses are in deadlines.cpp.)
#include "engine/llama/loop.h"

#include <algorithm>
#include <functional>
#include <future>

#include <spdlog/spdlog.h>

#include "engine/llama/compute_gate.h"
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

Loop::Loop(const LoopSetup& setup)
    : model_(setup.model),
      options_(setup.options),
      max_context_(setup.max_context),
      admission_(setup.admission),
      context_(setup.context),
      memory_(llama_get_memory(setup.context)),
      unified_(setup.options.kv_layout == EngineOptions::KvLayout::kUnified),
      scheduler_(setup.options.scheduling),
      promise_rules_{
          .continuous = setup.options.scheduling.batching == sched::BatchingMode::kContinuous,
          .preemption = setup.options.preemption != EngineOptions::Preemption::kOff},
      deadline_check_(promise_rules_, setup.options.scheduling.aging),
      prefix_cache_(range(setup.options.parallel,
                          setup.options.parallel + setup.options.prefix_cache_entries),
                    static_cast<std::size_t>(setup.options.prefix_cache_cells),
                    static_cast<std::size_t>(std::min(setup.options.parallel, kProbationEntries))),
      threadpool_(setup.threadpool),
      tuner_(setup.pool_threads),
      cost_(setup.options.step_tokens, unified_ ? kAttentionTileRows : 0) {
  threads_ = setup.pool_threads;
  free_seq_ids_ = range(0, options_.parallel);
  std::reverse(free_seq_ids_.begin(), free_seq_ids_.end());
  batch_ = llama_batch_init(std::max(options_.step_tokens, options_.parallel), 0, 1);
  counters_.kv_cells_total = static_cast<std::int64_t>(llama_n_ctx(context_));
  counters_.threads = threads_;
  running_views_.reserve(static_cast<std::size_t>(options_.parallel));
  outlook_.releases.reserve(static_cast<std::size_t>(options_.parallel));
}

Loop::~Loop() {
  llama_batch_free(batch_);
  llama_free(context_);
  ggml_threadpool_free(threadpool_);
}

void Loop::enqueue(std::unique_ptr<Sequence> sequence) {
  {
    std::lock_guard lock(inbox_mutex_);
    submitted_.push_back(std::move(sequence));
  }
  inbox_cv_.notify_one();
}

void Loop::cancel(RequestId id) {
  {
    std::lock_guard lock(inbox_mutex_);
    cancelled_.push_back(id);
  }
  inbox_cv_.notify_one();
}

void Loop::run_on_engine(const std::function<void()>& task) {
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

void Loop::request_stop() {
  {
    std::lock_guard lock(inbox_mutex_);
    stop_requested_ = true;
  }
  inbox_cv_.notify_one();
}

EngineStats Loop::stats() const {
  std::lock_guard lock(stats_mutex_);
  return published_;
}

void Loop::run() {
  publish_stats();       // the cache's size and the threads are known before any request
  bool stepped = false;  // since last_admission_
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
    const auto now = Clock::now();
    // A decaying maximum, so one slow iteration (a long prompt chunk, the OS taking the core)
    // is remembered for a while: start_due_promises must not wait for an admission that comes
    // too late.
    if (stepped) {
      const double iteration = std::chrono::duration<double>(now - last_admission_).count();
      slowest_iteration_ = std::max(iteration, slowest_iteration_ * kSlowestIterationDecay);
      // Deadlines are honoured within one iteration: one much longer than its step's tokens
      // predict is worth a line when refusals come late (a slow step, or the time around it:
      // the OS, the inbox, the sinks).
      const double step_ms = counters_.last_step_ms;
      const double predicted_ms = step_time_.predict(last_step_tokens_);
      if (iteration * 1e3 > predicted_ms + static_cast<double>(kSlowIterationLog.count())) {
        spdlog::debug(
            "slow iteration: {:.0f} ms; the step {:.0f} ms for {} tokens (predicted "
            "{:.0f} ms), the rest {:.0f} ms",
            iteration * 1e3, step_ms, last_step_tokens_, predicted_ms, iteration * 1e3 - step_ms);
      }
      // Every iteration at the trace level: what the capacity planner's iteration costs are
      // fitted to (iteration_cost.h), for checking that fit against the engine's own record.
      spdlog::trace(
          "iteration: {:.3f} ms, step {:.3f} ms, {} decode + {} prompt tokens, {}, "
          "{} running, {}, {} decode context, {} cells in use",
          iteration * 1e3, step_ms, last_decode_tokens_, last_step_tokens_ - last_decode_tokens_,
          last_step_split_ ? "split" : "one call", running_.size(),
          idle ? "idle after" : "busy after", last_decode_context_,
          options_.context_cells - free_cells());
      // An iteration that went on to the next without waiting for work: what it cost.
      if (!idle && last_step_costed_) {
        cost_.record_iteration(last_decode_tokens_, last_step_tokens_ - last_decode_tokens_,
                               last_step_split_, iteration * 1e3);
      }
    }
    last_admission_ = now;
    stepped = false;
    admit();
    publish_outlook();  // requests arriving during the step count the ones just started
    refuse_unreachable_deadlines();
    if (!running_.empty()) {
      // Background work computes only in the gaps of every engine's callers (compute_gate.h).
      const bool background = only_background();
      if (!background || process_compute_gate().await_gap(kGapWait)) {
        step(background);
        stepped = true;
      }
    } else if (!scheduler_.empty()) {
      // Waiting without running: a dynamic-batching window is open. Nap briefly.
      std::unique_lock lock(inbox_mutex_);
      inbox_cv_.wait_for(lock, std::chrono::milliseconds(2));
    }
    erase_finished();
    publish_outlook();  // and until the next one, the slots this step freed (maybe idle)
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

bool Loop::only_background() const {
  const auto background = [](const Sequence& s) { return s.request.background; };
  if (running_.empty() && waiting_.empty()) return false;
  return std::all_of(running_.begin(), running_.end(),
                     [&](const auto& s) { return background(*s); }) &&
         std::all_of(waiting_.begin(), waiting_.end(),
                     [&](const auto& entry) { return background(*entry.second); });
}

void Loop::take_inbox(bool wait) {
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
    scheduler_.push(sequence->ticket());
    waiting_.emplace(sequence->id, std::move(sequence));
  }
  for (RequestId id : cancelled) {
    if (auto it = waiting_.find(id); it != waiting_.end()) {
      scheduler_.erase(id);
      leave_queue(*it->second);
      it->second->phases.cancelled_ms = it->second->ms_at(Clock::now());
      finish(*it->second, FinishReason::kCancelled);
      waiting_.erase(it);
      continue;
    }
    for (auto& sequence : running_) {
      if (sequence->id == id && sequence->sink) {
        sequence->phases.cancelled_ms = sequence->ms_at(Clock::now());
        finish(*sequence, FinishReason::kCancelled);
      }
    }
  }
  for (auto& task : tasks)
    task();
}

void Loop::finish(Sequence& s, FinishReason reason, Error error) {
  if (!s.sink) return;  // already finished
  const bool normal = reason == FinishReason::kStop || reason == FinishReason::kLength;
  if (normal && !s.stop.stopped()) {
    std::string tail = s.stop.push(s.utf8.finish());
    if (!s.stop.stopped()) tail += s.stop.flush();
    if (!tail.empty()) s.sink->on_text(tail);
  }
  if (s.seq_id >= 0) release_cells(s, normal);
  if (normal) {
    admission_.record_finish();
    cost_.record_request(static_cast<int>(s.prompt_size - std::min(s.prompt_size, s.reused)),
                         s.generated);
  }
  s.foreground.release();  // no caller waits any longer

  const auto now = Clock::now();
  Completion completion;
  completion.reason = reason;
  completion.error = std::move(error);
  completion.usage.prompt_tokens = static_cast<int>(s.prompt_size) - s.continued;
  completion.usage.completion_tokens = s.generated + s.continued;
  completion.usage.cached_tokens = static_cast<int>(s.reused);
  completion.timings.total_ms = ms_between(s.submitted, now);
  const bool was_admitted = s.admitted != Clock::time_point{};
  completion.timings.queued_ms = ms_between(s.submitted, was_admitted ? s.admitted : now);
  completion.timings.first_token_ms =
      s.has_first_token ? ms_between(s.submitted, s.first_token) : -1;
  s.phases.reused_tokens = static_cast<int>(s.reused);
  s.phases.close(s.ms_at(now));
  completion.phases = s.phases;
  auto sink = std::move(s.sink);
  sink->on_done(completion);
}

void Loop::leave_queue(Sequence& s) {
  if (!s.counted_waiting) return;
  s.counted_waiting = false;
  admission_.left_queue(s.request.priority);
}

void Loop::erase_finished() {
  std::erase_if(running_, [](const std::unique_ptr<Sequence>& s) { return !s->sink; });
}

void Loop::publish_stats() {
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
  const KvAudit audit = audit_kv();
  snapshot.kv_cells_leaked = audit.cells_leaked;
  snapshot.kv_sequences_leaking = audit.sequences_leaking;
  snapshot.cost = cost_.snapshot();
  std::lock_guard lock(stats_mutex_);
  published_ = snapshot;
}

void Loop::clear_prefix_cache() {
  drop_cached_prefixes(prefix_cache_.clear());
  publish_stats();
}

int Loop::sequences_holding_cells() const {
  int holding = 0;
  for (int id = 0; id < options_.parallel; ++id) {
    if (llama_memory_seq_pos_max(memory_, id) >= 0) ++holding;
  }
  return holding;
}

}  // namespace supportd::engine::llama
