// The background OTLP exporter (see otlp_exporter.h): a bounded queue, batches, retries with
// backoff, a bounded flush at shutdown.
#include "obs/trace/otlp_exporter.h"

#include <algorithm>
#include <random>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace supportd::obs::trace {
namespace {

using Clock = std::chrono::steady_clock;

bool retryable(int status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

}  // namespace

OtlpExporter::OtlpExporter(std::optional<ExporterOptions> options, Resource resource,
                           InstrumentationScope scope, obs::Registry* registry,
                           std::function<void()> on_wake)
    : options_(std::move(options)),
      resource_(std::move(resource)),
      scope_(std::move(scope)),
      on_wake_(std::move(on_wake)) {
  if (options_) client_ = std::make_unique<OtlpClient>(options_->url, options_->headers);
  if (registry != nullptr) {
    exported_counter_ =
        &registry->counter("supportd_trace_spans_exported_total", "Spans the collector accepted.")
             .get();
    dropped_family_ = &registry->counter(
        "supportd_trace_spans_dropped_total",
        "Kept spans never exported: the queue was full, the collector refused or could not be "
        "reached in time, or shutdown came first.",
        {"reason"});
    for (const char* reason : {"queue_full", "export_failed", "shutdown"})
      dropped_family_->with({reason});
    retry_counter_ = &registry
                          ->counter("supportd_trace_export_retries_total",
                                    "Export attempts repeated after a 429/5xx or a network error.")
                          .get();
    queued_gauge_ =
        &registry->gauge("supportd_trace_queue_spans", "Spans waiting to be exported.").get();
  }
  thread_ = std::thread([this] { run(); });
}

OtlpExporter::~OtlpExporter() {
  shutdown(std::chrono::seconds(5));
}

bool OtlpExporter::enqueue(ExportedTrace trace) {
  const std::size_t spans = trace.spans.size();
  bool full_batch = false;
  {
    std::lock_guard lock(mutex_);
    if (client_ == nullptr || stopping_ || queued_spans_ + spans > options_->max_queue_spans) {
      if (client_ != nullptr) count_dropped(spans, "queue_full");
      return false;
    }
    const std::size_t before = queued_spans_;
    queue_.push_back(std::move(trace));
    queued_spans_ += spans;
    // Wake the thread only when a batch fills: a notify per request would cost a system call.
    full_batch = before < options_->max_batch_spans && queued_spans_ >= options_->max_batch_spans;
    if (queued_gauge_ != nullptr) queued_gauge_->set(static_cast<double>(queued_spans_));
  }
  if (full_batch) wake_up_.notify_one();
  return true;
}

void OtlpExporter::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_up_.notify_one();
}

void OtlpExporter::shutdown(std::chrono::milliseconds bound) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      stopping_ = true;
      stop_by_ = Clock::now() + bound;
    }
  }
  wake_up_.notify_one();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void OtlpExporter::count_dropped(std::size_t spans, const char* reason) {
  if (spans == 0) return;
  dropped_ += static_cast<std::int64_t>(spans);
  if (dropped_family_ != nullptr)
    dropped_family_->with({reason}).increment(static_cast<double>(spans));
}

void OtlpExporter::warn(const std::string& message) {
  const auto now = Clock::now();
  if (last_warning_ != Clock::time_point{} && now - last_warning_ < std::chrono::minutes(1)) {
    spdlog::debug("tracing: {}", message);
    return;
  }
  last_warning_ = now;
  spdlog::warn("tracing: {} (further export problems within a minute are logged at debug)",
               message);
}

void OtlpExporter::run() {
  const auto delay = options_ ? options_->delay : std::chrono::milliseconds(3600 * 1000);
  const std::size_t batch_spans = options_ ? options_->max_batch_spans : 1;
  std::unique_lock lock(mutex_);
  auto flush_at = Clock::now() + delay;
  for (;;) {
    wake_up_.wait_until(lock, flush_at, [&] {
      return woken_ || stopping_ || (client_ != nullptr && queued_spans_ >= batch_spans);
    });
    woken_ = false;
    lock.unlock();
    on_wake_();  // may enqueue
    lock.lock();
    const auto now = Clock::now();
    const bool timer = now >= flush_at;
    while (!queue_.empty() && (stopping_ || timer || queued_spans_ >= batch_spans)) {
      if (stopping_ && now >= stop_by_) break;
      std::vector<ExportedTrace> batch;
      std::size_t spans = 0;
      while (!queue_.empty() &&
             (batch.empty() || spans + queue_.front().spans.size() <= batch_spans)) {
        spans += queue_.front().spans.size();
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      queued_spans_ -= spans;
      if (queued_gauge_ != nullptr) queued_gauge_->set(static_cast<double>(queued_spans_));
      auto deadline = Clock::now() + options_->timeout;
      if (stopping_) deadline = std::min(deadline, stop_by_);
      lock.unlock();
      send(batch, spans, deadline);
      lock.lock();
    }
    if (timer) flush_at = Clock::now() + delay;
    if (stopping_ && (queue_.empty() || Clock::now() >= stop_by_)) break;
  }
  std::size_t left = queued_spans_;
  queue_.clear();
  queued_spans_ = 0;
  lock.unlock();
  on_wake_();  // traces handed over during the last batch are finished (and their spans counted)
  count_dropped(left, "shutdown");
}

void OtlpExporter::send(std::vector<ExportedTrace>& batch, std::size_t spans,
                        Clock::time_point deadline) {
  const std::string body = encode_export_request(resource_, scope_, batch);
  thread_local std::minstd_rand jitter{std::random_device{}()};
  auto backoff = options_->first_backoff;
  for (int attempt = 0;; ++attempt) {
    auto reply = client_->post(body, deadline);
    if (reply && reply->status >= 200 && reply->status < 300) {
      exported_ += static_cast<std::int64_t>(spans);
      if (exported_counter_ != nullptr) exported_counter_->increment(static_cast<double>(spans));
      return;
    }
    if (reply && !retryable(reply->status)) {
      warn(fmt::format("the collector refused {} spans with HTTP {}: {}", spans, reply->status,
                       reply->body.substr(0, 200)));
      count_dropped(spans, "export_failed");
      return;
    }
    // Retry after the backoff (or the collector's Retry-After), if the batch's time allows.
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
        backoff * std::uniform_real_distribution<double>(0.8, 1.2)(jitter));
    if (reply && reply->retry_after_s >= 0) wait = std::chrono::seconds(reply->retry_after_s);
    const auto retry_at = Clock::now() + wait;
    if (retry_at >= deadline) {
      warn(fmt::format("dropped {} spans after {} attempts: {}", spans, attempt + 1,
                       reply ? "HTTP " + std::to_string(reply->status) : reply.error().message));
      count_dropped(spans, "export_failed");
      return;
    }
    {
      std::unique_lock lock(mutex_);
      // A shutdown does not cut the wait short: the batch's deadline already bounds it.
      wake_up_.wait_until(lock, retry_at, [&] { return stopping_ && Clock::now() >= stop_by_; });
    }
    ++retries_;
    if (retry_counter_ != nullptr) retry_counter_->increment();
    backoff = std::min(backoff * 2, options_->max_backoff);
  }
}

}  // namespace supportd::obs::trace
