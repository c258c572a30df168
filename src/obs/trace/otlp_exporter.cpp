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

std::atomic<std::uint64_t> next_exporter_id{0};

bool retryable(int status) {
  return status == 429 || status == 502 || status == 503 || status == 504;
}

}  // namespace

OtlpExporter::OtlpExporter(std::optional<ExporterOptions> options, Resource resource,
                           InstrumentationScope scope, obs::Registry* registry,
                           std::function<void()> on_wake)
    : options_(std::move(options)),
      head_(resource, scope),
      on_wake_(std::move(on_wake)),
      id_(next_exporter_id.fetch_add(1) + 1) {
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
    queued_gauge_ = &registry
                         ->gauge("supportd_trace_queue_spans",
                                 "Spans in closed batches waiting to be sent (each thread's open "
                                 "batch joins them within the flush delay).")
                         .get();
  }
  thread_ = std::thread([this] { run(); });
}

OtlpExporter::~OtlpExporter() {
  shutdown(std::chrono::seconds(5));
}

bool OtlpExporter::enqueue(const ExportedTrace& trace, const OwnSpans* own) {
  if (client_ == nullptr) return false;
  const std::size_t spans = trace.spans.size() + (own != nullptr ? own->count : 0);
  const std::size_t max_queue = options_->max_queue_spans;
  const std::size_t max_batch = options_->max_batch_spans;
  // A full queue refuses before any encoding and without a lock (while the collector is away
  // every request's spans are refused).
  if (queued_spans_.load(std::memory_order_relaxed) + spans > max_queue) {
    count_dropped(spans, DropReason::kQueueFull);
    return false;
  }
  Lane* lane = this->lane();
  if (lane == nullptr) {
    count_dropped(spans, DropReason::kQueueFull);
    return false;
  }
  std::vector<Batch> closed;
  {
    std::lock_guard lock(lane->mutex);
    if (lane->closed ||
        queued_spans_.load(std::memory_order_relaxed) + lane->count + spans > max_queue) {
      count_dropped(spans, DropReason::kQueueFull);
      return false;
    }
    // A trace is never split between batches: one that does not fit starts the next.
    if (lane->count > 0 && lane->count + spans > max_batch) closed.push_back(take(*lane));
    // Encoded here, while the spans are in this thread's cache, straight into the batch.
    if (lane->open.data().empty()) lane->open.pad(head_.room());
    encode_spans(trace, lane->open);
    if (own != nullptr) own->write(lane->open, trace);
    lane->count += spans;
    if (lane->count >= max_batch) closed.push_back(take(*lane));
  }
  if (closed.empty()) return true;
  std::string memory;
  {
    std::lock_guard lock(mutex_);
    queue(closed);
    memory = take_spare();
  }
  // Wake the thread only when a batch fills: a notify per request would cost a system call.
  wake_up_.notify_one();
  if (!memory.empty()) {
    std::lock_guard lock(lane->mutex);
    if (lane->count == 0 && lane->open.capacity() < memory.capacity())
      lane->open.adopt(std::move(memory));
  }
  return true;
}

OtlpExporter::Lane* OtlpExporter::lane() {
  // The thread's lanes, one per exporter it has used: held here as long as the thread lives
  // and by the exporter, which forgets a lane once it is the only holder.
  struct Held {
    std::uint64_t exporter;
    std::shared_ptr<Lane> lane;
  };
  thread_local std::vector<Held> held;
  for (const Held& h : held)
    if (h.exporter == id_) return h.lane.get();
  std::erase_if(held, [](const Held& h) {  // lanes of exporters that stopped
    std::lock_guard lock(h.lane->mutex);
    return h.lane->closed;
  });
  auto lane = std::make_shared<Lane>();
  {
    std::lock_guard lock(mutex_);
    if (lanes_closed_) return nullptr;
    lanes_.push_back(lane);
  }
  held.push_back({id_, lane});
  return lane.get();
}

OtlpExporter::Batch OtlpExporter::take(Lane& lane) {
  Batch batch{lane.open.take(), lane.count};
  lane.count = 0;
  return batch;
}

void OtlpExporter::queue(std::vector<Batch>& batches) {
  for (Batch& batch : batches) {
    if (finished_) {
      count_dropped(batch.count, DropReason::kShutdown);
      continue;
    }
    queued_spans_.store(queued_spans_.load(std::memory_order_relaxed) + batch.count,
                        std::memory_order_relaxed);
    queue_.push_back(std::move(batch));
  }
  if (queued_gauge_ != nullptr) queued_gauge_->set(static_cast<double>(queued_spans_));
}

std::string OtlpExporter::take_spare() {
  if (spare_.empty()) return {};
  std::string memory = std::move(spare_.back());
  spare_.pop_back();
  return memory;
}

void OtlpExporter::collect_lanes(bool for_good) {
  std::vector<std::shared_ptr<Lane>> lanes;
  std::vector<std::shared_ptr<Lane>> ended;  // their thread has gone: emptied, then forgotten
  {
    std::lock_guard lock(mutex_);
    if (for_good) lanes_closed_ = true;
    for (auto& lane : lanes_)
      (lane.use_count() == 1 ? ended : lanes).push_back(lane);
    lanes_ = lanes;
  }
  lanes.insert(lanes.end(), ended.begin(), ended.end());
  std::vector<Batch> batches;
  for (auto& lane : lanes) {
    std::lock_guard lock(lane->mutex);
    if (lane->count > 0) batches.push_back(take(*lane));
    if (for_good) {
      lane->closed = true;
      lane->open = ProtobufWriter();  // its memory too, while the thread still holds the lane
    }
  }
  std::lock_guard lock(mutex_);
  if (for_good) lanes_.clear();
  queue(batches);
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
  bool collected_for_good = false;
  for (;;) {
    wake_up_.wait_until(lock, flush_at, [&] { return woken_ || stopping_ || !queue_.empty(); });
    woken_ = false;
    const bool stopping = stopping_;
    lock.unlock();
    on_wake_();  // may enqueue
    const bool timer = Clock::now() >= flush_at;
    // The open batches join the queue on the timer (a partial batch leaves within `delay`),
    // and for good at shutdown.
    if (timer || (stopping && !collected_for_good)) {
      if (options_) collect_lanes(stopping);
      collected_for_good = stopping;
    }
    lock.lock();
    while (!queue_.empty()) {
      // Read each time: past the shutdown's bound what is left stays queued and is counted as
      // a shutdown drop, instead of being sent with a deadline already past.
      if (stopping_ && Clock::now() >= stop_by_) break;
      Batch batch = std::move(queue_.front());
      queue_.pop_front();
      queued_spans_ -= batch.count;
      if (queued_gauge_ != nullptr) queued_gauge_->set(static_cast<double>(queued_spans_));
      auto deadline = Clock::now() + options_->timeout;
      if (stopping_) deadline = std::min(deadline, stop_by_);
      lock.unlock();
      send(batch, deadline);
      lock.lock();
      // Its memory serves a next batch (a new one would be fresh pages, faulted in again).
      if (spare_.size() < kSpareBatches && batch.spans.capacity() <= kSpareBatchBytes)
        spare_.push_back(std::move(batch.spans));
    }
    if (timer) flush_at = Clock::now() + delay;
    if (stopping_ && collected_for_good && (queue_.empty() || Clock::now() >= stop_by_)) break;
  }
  // Batches closed from now on are counted dropped where they close (queue()).
  finished_ = true;
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
      // A shutdown cuts the wait short at its bound, and the batch is given up then: retried
      // at once instead, a dead collector was called in a loop until the batch's own timeout.
      wake_up_.wait_until(lock, retry_at, [&] { return stopping_ && Clock::now() >= stop_by_; });
      if (stopping_ && Clock::now() >= stop_by_) {
        lock.unlock();
        count_dropped(spans, DropReason::kShutdown);
        return;
      }
    }
    ++retries_;
    if (retry_counter_ != nullptr) retry_counter_->increment();
    backoff = std::min(backoff * 2, options_->max_backoff);
  }
}

}  // namespace supportd::obs::trace
