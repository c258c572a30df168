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
    : options_(std::move(options)), head_(resource, scope), on_wake_(std::move(on_wake)) {
  if (options_) client_ = std::make_unique<OtlpClient>(options_->url, options_->headers);
  if (registry != nullptr) {
    exported_counter_ =
        &registry->counter("supportd_trace_spans_exported_total", "Spans the collector accepted.")
             .get();
    auto& dropped = registry->counter(
        "supportd_trace_spans_dropped_total",
        "Kept spans never exported: the queue was full, the collector refused or could not be "
        "reached in time, or shutdown came first.",
        {"reason"});
    // Looked up once: a drop (every request's, while the collector is away) is an atomic add.
    dropped_counters_[static_cast<int>(DropReason::kQueueFull)] = &dropped.with({"queue_full"});
    dropped_counters_[static_cast<int>(DropReason::kExportFailed)] =
        &dropped.with({"export_failed"});
    dropped_counters_[static_cast<int>(DropReason::kShutdown)] = &dropped.with({"shutdown"});
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

bool OtlpExporter::enqueue(const ExportedTrace& trace) {
  if (client_ == nullptr) return false;
  const std::size_t spans = trace.spans.size();
  // A full queue refuses before any encoding and without the lock (the thread holds it while it
  // takes a batch; the request threads would queue behind each other for a refusal).
  if (queued_spans_.load(std::memory_order_relaxed) + spans > options_->max_queue_spans) {
    count_dropped(spans, DropReason::kQueueFull);
    return false;
  }
  // Encoded here, while the spans are in this thread's cache, into this thread's buffer (kept
  // between calls unless a huge trace made it grow).
  constexpr std::size_t kKeptBuffer = 64 << 10;
  thread_local ProtobufWriter encoded;
  if (encoded.capacity() > kKeptBuffer) encoded = ProtobufWriter();
  encoded.clear();
  encode_spans(trace, encoded);
  bool ready = false;
  {
    std::lock_guard lock(mutex_);
    const std::size_t before = queued_spans_.load(std::memory_order_relaxed);
    if (stopping_ || before + spans > options_->max_queue_spans) {
      count_dropped(spans, DropReason::kQueueFull);
      return false;
    }
    const std::size_t batch_spans = options_->max_batch_spans;
    if (!queue_.empty() && !queue_.back().closed && queue_.back().count > 0 &&
        queue_.back().count + spans > batch_spans) {
      queue_.back().closed = true;  // the trace does not fit: it starts the next batch
      ready = true;
    }
    if (queue_.empty() || queue_.back().closed) {
      queue_.emplace_back();
      std::string& bytes = queue_.back().spans;
      if (!spare_.empty()) {  // a sent batch's memory, already faulted in
        bytes = std::move(spare_.back());
        spare_.pop_back();
        bytes.clear();
      } else {
        bytes.reserve(last_batch_bytes_);
      }
      bytes.resize(head_.room());
    }
    Batch& open = queue_.back();
    open.spans.append(encoded.data());
    open.count += spans;
    if (open.count >= batch_spans) {
      open.closed = true;
      last_batch_bytes_ = open.spans.size();
      ready = true;
    }
    queued_spans_.store(before + spans, std::memory_order_relaxed);
    if (queued_gauge_ != nullptr) queued_gauge_->set(static_cast<double>(before + spans));
  }
  // Wake the thread only when a batch fills: a notify per request would cost a system call.
  if (ready) wake_up_.notify_one();
  return true;
}

bool OtlpExporter::batch_ready() const {
  return !queue_.empty() && queue_.front().closed;
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

void OtlpExporter::count_dropped(std::size_t spans, DropReason reason) {
  if (spans == 0) return;
  dropped_.fetch_add(static_cast<std::int64_t>(spans), std::memory_order_relaxed);
  if (obs::Counter* counter = dropped_counters_[static_cast<int>(reason)])
    counter->increment(static_cast<double>(spans));
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
  std::unique_lock lock(mutex_);
  auto flush_at = Clock::now() + delay;
  for (;;) {
    wake_up_.wait_until(lock, flush_at, [&] { return woken_ || stopping_ || batch_ready(); });
    woken_ = false;
    lock.unlock();
    on_wake_();  // may enqueue
    lock.lock();
    const auto now = Clock::now();
    const bool timer = now >= flush_at;
    while (!queue_.empty() && (stopping_ || timer || batch_ready())) {
      if (stopping_ && now >= stop_by_) break;
      Batch batch = std::move(queue_.front());
      queue_.pop_front();
      queued_spans_ -= batch.count;
      if (queued_gauge_ != nullptr) queued_gauge_->set(static_cast<double>(queued_spans_));
      auto deadline = Clock::now() + options_->timeout;
      if (stopping_) deadline = std::min(deadline, stop_by_);
      lock.unlock();
      send(batch, deadline);
      lock.lock();
      // Its memory serves the next batch (a new one would be fresh pages, faulted in again).
      if (spare_.size() < kSpareBatches && batch.spans.capacity() <= kSpareBatchBytes)
        spare_.push_back(std::move(batch.spans));
    }
    if (timer) flush_at = Clock::now() + delay;
    if (stopping_ && (queue_.empty() || Clock::now() >= stop_by_)) break;
  }
  std::size_t left = queued_spans_;
  queue_.clear();
  queued_spans_ = 0;
  lock.unlock();
  on_wake_();  // traces handed over during the last batch are finished (and their spans counted)
  count_dropped(left, DropReason::kShutdown);
}

void OtlpExporter::send(Batch& batch, Clock::time_point deadline) {
  const std::size_t spans = batch.count;
  const std::string_view body = head_.finish(batch.spans);
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
      count_dropped(spans, DropReason::kExportFailed);
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
      count_dropped(spans, DropReason::kExportFailed);
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
