// What the engine loop shows sched/ (views of its requests, its pace, its outlook) and the
// deadline refusals it acts on: the questions are sched/'s, the answers are carried out here.
#include <spdlog/spdlog.h>

#include "engine/llama/loop.h"

namespace supportd::engine::llama {
namespace {

double ms_since(Clock::time_point since, Clock::time_point now) {
  return std::chrono::duration<double, std::milli>(now - since).count();
}

}  // namespace

std::span<const sched::RequestView> Loop::view_running() {
  running_views_.clear();
  for (const auto& s : running_)
    running_views_.push_back(s->view());
  return running_views_;
}

std::span<const sched::RequestView> Loop::view_waiting() {
  waiting_views_.clear();
  for (const auto& [id, s] : waiting_)
    waiting_views_.push_back(s->view());
  return waiting_views_;
}

Sequence& Loop::running_at(const sched::RequestView& view) {
  return *running_[static_cast<std::size_t>(&view - running_views_.data())];
}

sched::Pace Loop::pace() const {
  return {.step_seconds = step_time_.mean() / 1e3, .prompt_chunk = options_.step_tokens};
}

void Loop::expire_deadlines() {
  if (waiting_.empty()) return;
  const auto now = Clock::now();
  sched::expired_deadlines(view_waiting(), view_running(), free_slots(), promise_rules_, now,
                           last_admission_, expired_);
  for (RequestId id : expired_) {
    const auto it = waiting_.find(id);
    spdlog::debug("request {} expired after waiting {:.0f} ms", id,
                  ms_since(it->second->submitted, now));
    refuse_waiting(it, "the request could not start before its deadline (timeout)");
  }
}

void Loop::refuse_unreachable_deadlines() {
  // A refusal now is late all the same (the client was told it was accepted), but better than
  // at the deadline; sched::DeadlineCheck says which (a request out of the releases' reach is
  // kept while a running stream may pause for it at its deadline: start_due_promises).
  if (waiting_.empty()) return;
  const auto now = Clock::now();
  for (const sched::Unreachable& refused :
       deadline_check_.unreachable(view_waiting(), view_running(), free_slots(), admission_, now)) {
    const auto it = waiting_.find(refused.id);
    spdlog::debug("request {} refused after waiting {:.0f} ms: expected wait {:.0f} ms, {} ahead",
                  refused.id, ms_since(it->second->submitted, now), refused.wait.count() * 1e3,
                  refused.ahead);
    refuse_waiting(it, fmt::format("the request can no longer start before its deadline (expected "
                                   "wait {:.1f} s at the current service rate)",
                                   refused.wait.count()));
  }
}

void Loop::refuse_waiting(Waiting::iterator it, std::string message) {
  Sequence& s = *it->second;
  scheduler_.erase(it->first);
  leave_queue(s);
  Error error = Error::make(ErrorCode::kDeadline, std::move(message));
  error.retry_after_s = static_cast<int>(admission_.retry_after(s.request.priority).count());
  finish(s, FinishReason::kDeadline, std::move(error));
  waiting_.erase(it);
}

void Loop::publish_outlook() {
  sched::forecast(view_running(), free_slots(), !scheduler_.empty(), pace(), Clock::now(),
                  outlook_);
  admission_.publish(outlook_);
}

}  // namespace supportd::engine::llama
