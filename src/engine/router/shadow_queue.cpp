// Shadow traffic's queue, its copies' sink and the comparison of answers (see shadow_queue.h).
#include "engine/router/shadow_queue.h"

#include <chrono>

#include "engine/router/agreement.h"
#include "obs/histogram_quantile.h"

namespace supportd::engine::router {
namespace {

// How long the queue's thread sleeps at most between looks: a copy's end wakes it, but that
// wake is sent without the mutex (from an engine's thread) and may be missed.
constexpr std::chrono::milliseconds kLook{20};

double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A copy's output: timed, kept for the comparison, shown to nobody.
class ShadowSink final : public GenerationSink {
 public:
  ShadowSink(std::shared_ptr<ShadowFigures> figures, std::shared_ptr<AnswerPair> pair,
             std::function<void()> on_end)
      : figures_(std::move(figures)), pair_(std::move(pair)), on_end_(std::move(on_end)) {}

  // The queue gives the copy up: the cancel that follows counts as expired, not as an error.
  void expire() { expired_.store(true); }

  void on_text(std::string_view text) override {
    if (!first_token_seen_) {
      first_token_seen_ = true;
      figures_->ttft_ms.observe(milliseconds_since(submitted_));
    }
    text_ += text;
  }
  void on_done(const Completion& completion) override {
    figures_->e2e_ms.observe(milliseconds_since(submitted_));
    const bool complete = is_answer(completion.reason);
    if (complete) figures_->completed.fetch_add(1);
    if (completion.reason == FinishReason::kCancelled && expired_.load())
      figures_->expired.fetch_add(1);
    if (completion.reason == FinishReason::kError || completion.reason == FinishReason::kDeadline)
      figures_->errors.fetch_add(1);
    pair_->shadow_ended(std::move(text_), complete);
    on_end_();
  }

 private:
  const std::shared_ptr<ShadowFigures> figures_;
  const std::shared_ptr<AnswerPair> pair_;
  const std::function<void()> on_end_;
  const Clock::time_point submitted_ = Clock::now();
  std::atomic<bool> expired_{false};  // set by the queue before it cancels the copy
  std::string text_;                  // the engine's thread alone touches it
  bool first_token_seen_ = false;     // likewise
};

}  // namespace

ShadowSummary summarize(const ShadowFigures& figures) {
  ShadowSummary summary;
  summary.copies = figures.copies.load();
  summary.dropped = figures.dropped.load();
  summary.expired = figures.expired.load();
  summary.errors = figures.errors.load();
  summary.completed = figures.completed.load();
  summary.compared = figures.compared.load();
  if (summary.compared > 0) {
    const auto compared = static_cast<double>(summary.compared);
    summary.exact_match_rate = static_cast<double>(figures.exact.load()) / compared;
    summary.token_overlap = static_cast<double>(figures.overlap_millionths.load()) / 1e6 / compared;
  }
  const auto ttft = figures.ttft_ms.snapshot();
  const auto e2e = figures.e2e_ms.snapshot();
  summary.ttft_p50_ms = obs::histogram_quantile(ttft, 0.5);
  summary.ttft_p99_ms = obs::histogram_quantile(ttft, 0.99);
  summary.e2e_p50_ms = obs::histogram_quantile(e2e, 0.5);
  summary.e2e_p99_ms = obs::histogram_quantile(e2e, 0.99);
  return summary;
}

void AnswerPair::end(int side, std::string text, bool complete) {
  std::lock_guard lock(mutex_);
  texts_[side] = std::move(text);
  complete_[side] = complete;
  if (++ended_ < 2 || !complete_[0] || !complete_[1]) return;
  const Agreement agreement = compare_answers(texts_[0], texts_[1]);
  figures_->compared.fetch_add(1);
  if (agreement.exact) figures_->exact.fetch_add(1);
  figures_->overlap_millionths.fetch_add(static_cast<std::int64_t>(agreement.overlap * 1e6));
}

ShadowQueue::ShadowQueue() : thread_([this](std::stop_token stop) { run(std::move(stop)); }) {}

ShadowQueue::~ShadowQueue() {
  stop();
}

void ShadowQueue::configure(ShadowLimits limits, Prepare prepare) {
  std::lock_guard lock(state_->mutex);
  limits_ = limits;
  prepare_ = std::move(prepare);
}

ShadowLimits ShadowQueue::limits() const {
  std::lock_guard lock(state_->mutex);
  return limits_;
}

bool ShadowQueue::offer(ShadowCopy copy) {
  ShadowFigures& figures = *copy.figures;
  {
    std::lock_guard lock(state_->mutex);
    if (!stopped_ && waiting_.size() < limits_.capacity) {
      copy.offered = Clock::now();
      waiting_.push_back(std::move(copy));
      figures.copies.fetch_add(1);
      state_->wake.notify_one();
      return true;
    }
  }
  figures.dropped.fetch_add(1);
  return false;  // `copy` (and its engine reference) is released here, outside the lock
}

void ShadowQueue::stop() {
  std::deque<ShadowCopy> dropped;
  {
    std::lock_guard lock(state_->mutex);
    stopped_ = true;
    dropped.swap(waiting_);
  }
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) {
    thread_.request_stop();
    thread_.join();
  }
}

std::size_t ShadowQueue::waiting() const {
  std::lock_guard lock(state_->mutex);
  return waiting_.size();
}

int ShadowQueue::running() const {
  return state_->running.load();
}

void ShadowQueue::run(std::stop_token stop) {
  std::unique_lock lock(state_->mutex);
  auto can_start = [this] {
    return !waiting_.empty() && state_->running.load() < limits_.concurrency;
  };
  while (!stop.stop_requested()) {
    // Wakes for a copy to start, or every kLook to give up the copies past their age.
    state_->wake.wait_for(lock, stop, kLook, can_start);
    std::deque<ShadowCopy> expired;
    std::vector<Running> cancels = take_expired(Clock::now(), expired);
    if (!expired.empty() || !cancels.empty()) {
      lock.unlock();
      for (const Running& copy : cancels) {
        copy.expire();
        if (const auto engine = copy.engine.lock()) engine->cancel(copy.id);
      }
      expired.clear();  // their engine references go outside the mutex
      lock.lock();
    }
    if (stop.stop_requested() || !can_start()) continue;
    ShadowCopy copy = std::move(waiting_.front());
    waiting_.pop_front();
    state_->running.fetch_add(1);
    const Prepare prepare = prepare_;
    lock.unlock();
    start(std::move(copy), prepare);
    lock.lock();
  }
}

std::vector<ShadowQueue::Running> ShadowQueue::take_expired(Clock::time_point now,
                                                            std::deque<ShadowCopy>& expired) {
  const auto max_age = limits_.max_age;
  // Copies wait in the order they were offered: the oldest first.
  while (!waiting_.empty() && now - waiting_.front().offered >= max_age) {
    waiting_.front().figures->expired.fetch_add(1);
    expired.push_back(std::move(waiting_.front()));
    waiting_.pop_front();
  }
  std::vector<Running> cancels;
  for (Running& copy : state_->copies) {
    if (copy.cancelled || copy.id == 0 || now - copy.offered < max_age) continue;
    copy.cancelled = true;
    cancels.push_back(copy);
  }
  return cancels;
}

void ShadowQueue::start(ShadowCopy copy, const Prepare& prepare) {
  ShadowFigures& figures = *copy.figures;
  const auto state = state_;
  if (prepare && !prepare(copy.request)) {
    figures.errors.fetch_add(1);
    state->running.fetch_sub(1);
    return;
  }
  auto forget = [state](std::uint64_t ticket) {
    std::lock_guard lock(state->mutex);
    std::erase_if(state->copies, [ticket](const Running& copy) { return copy.ticket == ticket; });
  };
  // The copy is among the running (its id still 0) before its engine can end it.
  std::shared_ptr<ShadowSink> sink;
  std::uint64_t ticket = 0;
  {
    std::lock_guard lock(state->mutex);
    ticket = ++state->tickets;
    sink = std::make_shared<ShadowSink>(copy.figures, copy.pair, [state, ticket, forget] {
      forget(ticket);
      state->running.fetch_sub(1);
      state->wake.notify_one();
    });
    state->copies.push_back(
        {ticket, copy.offered, copy.engine, 0, [weak = std::weak_ptr<ShadowSink>(sink)] {
           if (const auto alive = weak.lock()) alive->expire();
         }});
  }
  const auto submitted = copy.engine->submit(std::move(copy.request), std::move(sink));
  if (!submitted) {
    forget(ticket);
    figures.errors.fetch_add(1);  // the sink is never called
    state->running.fetch_sub(1);
    return;
  }
  std::lock_guard lock(state->mutex);
  for (Running& running : state->copies) {
    if (running.ticket == ticket) running.id = *submitted;  // gone when it has ended already
  }
}

}  // namespace supportd::engine::router
