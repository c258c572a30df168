// The engine thread's loop: take requests from the inbox, admit, step, finish, publish stats.
#include "engine/llama/loop.h"

#include <algorithm>
#include <functional>
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
      unified_(engine.options_.kv_layout == EngineOptions::KvLayout::kUnified),
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
  counters_.kv_cells_total = static_cast<std::int64_t>(llama_n_ctx(context));
  counters_.threads = threads_;
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
    }
    last_admission_ = now;
    stepped = false;
    admit();
    publish_admission();  // requests arriving during the step count the ones just started
    refuse_unreachable_deadlines();
    if (!running_.empty()) {
      step();
      stepped = true;
    } else if (!scheduler_.empty()) {
      // Waiting without running: a dynamic-batching window is open. Nap briefly.
      std::unique_lock lock(inbox_mutex_);
      inbox_cv_.wait_for(lock, std::chrono::milliseconds(2));
    }
    erase_finished();
    publish_admission();  // and until the next one, the slots this step freed (maybe idle)
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
  // Unless the loop itself was late: a deadline that passed since the last admission, which
  // did not find it due (start_due_promises), passed during a step that overran its window
  // (a loaded machine stalls a step many times over). If the promise can be kept, it is kept
  // now: a start one step late beats a refusal.
  const auto now = Clock::now();
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    Sequence& s = *it->second;
    if (s.request.deadline && *s.request.deadline <= now && !s.has_first_token &&
        !(*s.request.deadline > last_admission_ && can_keep_promise(s))) {
      spdlog::debug("request {} expired after waiting {:.0f} ms", s.id,
                    std::chrono::duration<double, std::milli>(now - s.submitted).count());
      it = refuse_waiting(it, "the request could not start before its deadline (timeout)");
    } else {
      ++it;
    }
  }
}

void LlamaEngine::Loop::refuse_unreachable_deadlines() {
  // Admission checked each deadline on arrival, against the service rate with a margin for how
  // completions bunch; since then higher classes may have overtaken the request, or the engine
  // may have slowed. Re-checked every step, a deadline that can no longer be met is refused now
  // rather than when it passes. Only while every slot is busy: then a start waits for a running
  // sequence to finish.
  //
  // The re-check asks whether the deadline is out of reach, not whether it is safe: it counts
  // when the running sequences will finish by the tokens they have left. The arrival's rate
  // says nothing of how long a request has waited already (the next completion is no nearer
  // after 200 ms than on arrival), so re-applying it refused requests accepted on a thin margin
  // a few steps later, late, though their slot was about to free.
  //
  // A refusal now is late all the same (the client was told it was accepted): a request out of
  // the releases' reach is kept instead while a running stream may pause for it at its deadline
  // (start_due_promises), one stream per request.
  if (waiting_.empty() || !free_seq_ids_.empty()) return;
  const auto now = Clock::now();
  struct Place {
    Priority priority;  // after aging: the class it competes in now
    Clock::time_point submitted;
    Waiting::iterator it;
  };
  std::vector<Place> order;
  bool any_deadline = false;
  for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
    const Sequence& s = *it->second;
    const sched::Ticket ticket{s.id, s.request.priority, s.request.tenant, s.submitted, s.cells};
    order.push_back({scheduler_.effective_priority(ticket, now), s.submitted, it});
    any_deadline = any_deadline || (s.request.deadline && !s.has_first_token);
  }
  if (!any_deadline) return;
  // The order in which they will start, tenant fairness aside.
  std::sort(order.begin(), order.end(), [](const Place& a, const Place& b) {
    return a.priority != b.priority ? a.priority < b.priority : a.submitted < b.submitted;
  });
  // Streams that may pause for a promise, lowest class first: each can keep one.
  std::vector<Priority> pausable;
  if (promises_kept_by_pausing()) {
    for (const auto& s : running_) {
      // One before its first token with a deadline will have it by the time it is needed.
      if (s->sink && s->preemptions == 0) pausable.push_back(s->request.priority);
    }
    std::sort(pausable.begin(), pausable.end(), std::greater<>());
  }
  int ahead = 0;
  for (const Place& place : order) {
    Sequence& s = *place.it->second;
    // Its own class and how long it has waited: the estimate ages it the way the scheduler will.
    const auto waited = std::chrono::duration<double>(now - s.submitted);
    const auto by_slots = engine_.admission_.wait_for_slot(s.request.priority, ahead, now, waited);
    const auto wait =
        by_slots ? *by_slots : engine_.admission_.expected_wait(s.request.priority, ahead, waited);
    if (s.request.deadline && !s.has_first_token &&
        now + std::chrono::duration_cast<Clock::duration>(wait) > *s.request.deadline) {
      // Kept at its deadline by pausing a stream of its class or a lower one, if there is one.
      const auto victim = std::find_if(pausable.begin(), pausable.end(),
                                       [&](Priority p) { return p >= s.request.priority; });
      if (victim != pausable.end()) {
        pausable.erase(victim);
        ++ahead;
        continue;
      }
      spdlog::debug("request {} refused after waiting {:.0f} ms: expected wait {:.0f} ms, {} ahead",
                    s.id, std::chrono::duration<double, std::milli>(now - s.submitted).count(),
                    wait.count() * 1e3, ahead);
      refuse_waiting(place.it,
                     fmt::format("the request can no longer start before its deadline (expected "
                                 "wait {:.1f} s at the current service rate)",
                                 wait.count()));
      continue;  // refused: no longer ahead of anyone
    }
    ++ahead;
  }
}

LlamaEngine::Loop::Waiting::iterator LlamaEngine::Loop::refuse_waiting(Waiting::iterator it,
                                                                       std::string message) {
  Sequence& s = *it->second;
  scheduler_.erase(it->first);
  leave_queue(s);
  Error error = Error::make(ErrorCode::kDeadline, std::move(message));
  error.retry_after_s =
      static_cast<int>(engine_.admission_.retry_after(s.request.priority).count());
  finish(s, FinishReason::kDeadline, std::move(error));
  return waiting_.erase(it);
}

void LlamaEngine::Loop::publish_admission() {
  // What admit() left waiting holds no slot (dynamic batching, or short of KV cells): new
  // arrivals then count on none.
  engine_.admission_.set_free_slots(scheduler_.empty() ? static_cast<int>(free_seq_ids_.size())
                                                       : 0);
  predict_completions();
}

void LlamaEngine::Loop::predict_completions() {
  // When each running sequence will finish: its prompt chunks and answer tokens left, at the
  // recent step time. Until completions are measured, admission control also needs some rate
  // to refuse on: with its slots kept full, the engine completes the running sequences' number
  // per service time (all of a sequence's prompt chunks and answer tokens). Their remaining
  // times would predict the next completion, but not the rate: midway through, that is twice
  // too fast, and one sequence about to finish alone claimed a hundred completions a second.
  const double step_seconds = step_time_.mean() / 1e3;
  engine_.admission_.set_step_time(step_seconds);
  const auto now = Clock::now();
  std::vector<Clock::time_point> releases;
  double service_steps = 0;
  for (const auto& s : running_) {
    if (!s->sink) continue;
    const double left = steps_left(*s) * step_seconds;
    releases.push_back(
        now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(left)));
    service_steps += steps(s->prompt_size - std::min(s->reused, s->prompt_size), s->max_new);
  }
  const double service_seconds =
      releases.empty() ? 0 : service_steps / static_cast<double>(releases.size()) * step_seconds;
  if (step_seconds <= 0) releases.clear();
  if (service_seconds > 0) {
    engine_.admission_.set_predicted_rate(static_cast<double>(releases.size()) / service_seconds);
  }
  engine_.admission_.set_slot_releases(std::move(releases), service_seconds);
}

double LlamaEngine::Loop::steps(std::size_t prompt_tokens, int answer_tokens) const {
  const auto chunk = static_cast<std::size_t>(std::max(options_.step_tokens, 1));
  return static_cast<double>((prompt_tokens + chunk - 1) / chunk) + std::max(answer_tokens, 1);
}

double LlamaEngine::Loop::steps_left(const Sequence& s) const {
  return steps(s.n_past < s.prompt_size ? s.prompt_size - s.n_past : 0, s.max_new - s.generated);
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
  completion.usage.prompt_tokens = static_cast<int>(s.prompt_size) - s.continued;
  completion.usage.completion_tokens = s.generated + s.continued;
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
