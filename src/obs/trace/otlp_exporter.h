// The background exporter: one thread that batches kept spans and POSTs them to an OTLP/HTTP
// collector as protobuf. Callers never wait for it: enqueue() encodes the spans into the
// calling thread's own open batch (its lane: a lock no other thread takes but the exporter's,
// once per `delay`) and returns; a full batch joins the queue of closed ones, which the thread
// sends. When the queue is full the spans are dropped and counted
// (supportd_trace_spans_dropped_total{reason="queue_full"}). A batch goes out when it is full
// or within `delay` after its first span; 429, 502, 503 and 504 answers and network failures
// are retried with exponential backoff (a Retry-After wins), within `timeout` per batch;
// shutdown() sends what is queued within a bound.
// Lanes, because one shared batch made every request's spans cross between cores: its lock and
// the lines it was written to moved from one I/O thread to the other on every request.
// The thread also runs `on_wake` (the tracer finishes there the traces the engine's thread
// must not finish) at every wake-up.
// Thread-safety: enqueue(), wake() and the counters may be used from any thread; shutdown()
// from one.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/http_url.h"
#include "obs/metrics.h"
#include "obs/trace/otlp_client.h"
#include "obs/trace/otlp_encoder.h"

namespace supportd::obs::trace {

struct ExporterOptions {
  HttpUrl url;                  // where to POST (the collector's .../v1/traces)
  OtlpClient::Headers headers;  // sent with every POST (e.g. an authorization header)
  // Spans in closed batches and the enqueuing thread's open one; each other thread's open batch
  // (at most max_batch_spans) comes on top.
  std::size_t max_queue_spans = 16384;
  // 2048 and not OpenTelemetry SDKs' 512: at tens of thousands of spans a second each POST's
  // own cost (the thread's wake-up, the exchange) was most of the export's (bench/trace-cost).
  std::size_t max_batch_spans = 2048;
  std::chrono::milliseconds delay{1000};     // a partial batch waits at most this long
  std::chrono::milliseconds timeout{10000};  // one batch, its retries included
  std::chrono::milliseconds first_backoff{250};
  std::chrono::milliseconds max_backoff{5000};
};

class OtlpExporter {
 public:
  // Starts the thread. Without `options` nothing is exported (enqueue() refuses) but the
  // thread still runs `on_wake`. `registry` may be null.
  OtlpExporter(std::optional<ExporterOptions> options, Resource resource,
               InstrumentationScope scope, obs::Registry* registry, std::function<void()> on_wake);
  ~OtlpExporter();  // shutdown() with a 5 s bound when not done yet
  OtlpExporter(const OtlpExporter&) = delete;
  OtlpExporter& operator=(const OtlpExporter&) = delete;

  bool exporting() const { return client_ != nullptr; }
  // Spans of a trace that are never records: `count` of them, written by `write` straight into
  // the batch after the trace's records (with SpanEncoder; `trace` gives the ids).
  struct OwnSpans {
    std::size_t count = 0;
    std::function<void(ProtobufWriter& out, const ExportedTrace& trace)> write;
  };
  // Queues the trace's spans (encoded), and `own`'s after them when given; false (counted as
  // dropped) when the queue has no room, nothing is exported, or the exporter stopped. Never
  // blocks on the network; the lock it takes is the calling thread's own.
  bool enqueue(const ExportedTrace& trace, const OwnSpans* own = nullptr);
  // Whether the queue has no room for `spans` more now (a hint: enqueue() decides).
  bool full(std::size_t spans) const {
    return client_ != nullptr &&
           queued_spans_.load(std::memory_order_relaxed) + spans > options_->max_queue_spans;
  }
  // Counts `spans` refused for a full queue without offering them (the tracer decided so
  // before building them whole: Tracer::end_early).
  void refuse(std::size_t spans) { count_dropped(spans, DropReason::kQueueFull); }
  // Runs `on_wake` on the thread soon.
  void wake();
  // Sends what is queued (and what `on_wake` adds meanwhile) within `bound`, then stops the
  // thread; spans still queued then are dropped and counted. Idempotent.
  void shutdown(std::chrono::milliseconds bound);

  // Counts since start, for tests and /v1/stats.
  std::int64_t exported_spans() const { return exported_.load(); }
  std::int64_t dropped_spans() const { return dropped_.load(); }
  std::int64_t retries() const { return retries_.load(); }

 private:
  void run();
  // Encoded spans of one or more traces, POSTed together: head_.room() bytes for the request's
  // head, then ScopeSpans.spans fields (encode_spans), joined; the request is finished in place
  // when the batch leaves (otlp_encoder.h).
  struct Batch {
    std::string spans;
    std::size_t count = 0;
  };
  // One thread's open batch.
  struct Lane {
    std::mutex mutex;
    ProtobufWriter open;    // guarded by mutex; empty until its first trace
    std::size_t count = 0;  // guarded by mutex; spans in `open`
    bool closed = false;    // guarded by mutex; the exporter stopped: nothing more is added
  };
  // The calling thread's lane, made on its first call; null once lanes are closed.
  Lane* lane();
  // Takes `lane`'s open batch. REQUIRES: lane.mutex held, lane.count > 0.
  static Batch take(Lane& lane);
  // Adds closed batches to the queue, or counts them dropped once the thread has ended.
  // REQUIRES: mutex_ held.
  void queue(std::vector<Batch>& batches);
  // A sent batch's memory for the next one, or an empty string. REQUIRES: mutex_ held.
  std::string take_spare();
  // Every lane's open batch joins the queue (`for_good`: the lanes take no more, at shutdown),
  // and lanes whose thread ended are forgotten. Takes mutex_ and each lane's, never together.
  void collect_lanes(bool for_good);
  // Sends one batch until it succeeds, fails for good, or `deadline` passes.
  void send(Batch& batch, std::chrono::steady_clock::time_point deadline);
  enum class DropReason { kQueueFull, kExportFailed, kShutdown };
  void count_dropped(std::size_t spans, DropReason reason);
  // Logs an export problem: a warning at most once a minute, debug lines in between.
  void warn(const std::string& message);

  const std::optional<ExporterOptions> options_;
  const ExportRequestHead head_;  // what each POST puts before its batch's spans
  const std::function<void()> on_wake_;
  std::unique_ptr<OtlpClient> client_;               // only the thread uses it after construction
  std::array<obs::Counter*, 3> dropped_counters_{};  // by DropReason
  obs::Counter* exported_counter_ = nullptr;
  obs::Counter* retry_counter_ = nullptr;
  obs::Gauge* queued_gauge_ = nullptr;
  std::atomic<std::int64_t> exported_{0};
  std::atomic<std::int64_t> dropped_{0};
  std::atomic<std::int64_t> retries_{0};
  std::chrono::steady_clock::time_point last_warning_;  // the thread's own

  const std::uint64_t id_;  // this exporter among the process's: the threads' lane lists' key
  std::mutex mutex_;
  std::condition_variable wake_up_;
  std::deque<Batch> queue_;                   // guarded by mutex_; closed batches
  std::vector<std::shared_ptr<Lane>> lanes_;  // guarded by mutex_
  bool lanes_closed_ = false;                 // guarded by mutex_; no lane is made any more
  bool finished_ = false;                     // guarded by mutex_; the thread sends no more
  // Sent batches' memory, reused by the next ones (up to a few, none of a huge one).
  static constexpr std::size_t kSpareBatches = 4;
  static constexpr std::size_t kSpareBatchBytes = 4u << 20;
  std::vector<std::string> spare_;  // guarded by mutex_
  // Spans in closed batches. Changed under mutex_; read without it by enqueue().
  std::atomic<std::size_t> queued_spans_{0};
  bool woken_ = false;                             // guarded by mutex_
  bool stopping_ = false;                          // guarded by mutex_
  std::chrono::steady_clock::time_point stop_by_;  // guarded by mutex_; when stopping_
  std::thread thread_;                             // last: starts after everything above
};

}  // namespace supportd::obs::trace
