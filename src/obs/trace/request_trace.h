// The spans of one request, held in memory until the request ends, when the tracer decides
// whether to keep them (sampled, failed, or slow: Tracer::finish).
// A request ends when its last part ends: the HTTP exchange is one part, and work that may
// outlive it (a generation whose client went away, a desk turn) opens its own. Whoever ends
// the last part calls end_part(), which hands the trace to the tracer.
// Thread-safety: every method may be called from any thread (spans arrive from I/O threads,
// desk workers and the finishing thread); the ids and the sampled flag are constant.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "obs/trace/span.h"
#include "obs/trace/trace_context.h"

namespace supportd::obs::trace {

class Tracer;

class RequestTrace : public std::enable_shared_from_this<RequestTrace> {
 public:
  static constexpr std::size_t kMaxSpans = 512;  // more are dropped (and counted)

  // Made by Tracer::start. `parent`: the caller's span when a valid traceparent came.
  RequestTrace(Tracer* tracer, TraceId trace_id, SpanId root_id, std::optional<SpanContext> parent,
               bool sampled);

  const TraceId& trace_id() const { return trace_id_; }
  // The request's own (server) span: the parent of the spans the request's layers make.
  const SpanId& root_id() const { return root_id_; }
  // The caller's span (the root span's parent); empty for a trace started here.
  SpanId remote_parent() const { return parent_ ? parent_->span_id : SpanId{}; }
  bool has_remote_parent() const { return parent_.has_value(); }
  bool sampled() const { return sampled_; }
  const std::string& tracestate() const { return tracestate_; }
  // "00-<trace id>-<root span id>-<flags>": what the response carries.
  std::string traceparent() const;

  // --- what logs of the request carry (json logs) ---
  // The caller's id for the request (X-Request-Id), set by the request's owner before it
  // hands work to other threads; without one the request's id is its root span's id.
  void set_request_id(std::string id) { request_id_ = std::move(id); }
  bool has_given_request_id() const { return !request_id_.empty(); }
  // The caller's id; empty without one.
  const std::string& given_request_id() const { return request_id_; }
  std::string request_id() const { return request_id_.empty() ? root_id_.hex() : request_id_; }
  // The route ("POST /v1/answer", once matched) and the tenant (after authentication); each
  // may be set and read from any thread.
  void set_route(std::string_view route);
  std::string route() const;
  void set_tenant(std::string tenant);
  std::string tenant() const;
  // Both at once (one lock): what the request's SERVER span is named and tagged with.
  struct Labels {
    std::string route;
    std::string tenant;
  };
  Labels labels() const;

  // --- spans ---
  // A span starting now (or at `at`), child of `parent` (the root span when empty), with a
  // fresh id.
  SpanRecord begin_span(std::string name, SpanId parent = {},
                        SpanKind kind = SpanKind::kInternal) const {
    return begin_span(std::move(name), parent, kind, std::chrono::steady_clock::now());
  }
  SpanRecord begin_span(std::string name, SpanId parent, SpanKind kind,
                        std::chrono::steady_clock::time_point at) const;
  // The root span, starting when the trace did: id root_id(), parent the caller's span.
  SpanRecord begin_root(std::string name, SpanKind kind) const;
  // Adds a finished span; beyond kMaxSpans it is dropped and counted. A span with the error
  // status marks the request failed.
  void add(SpanRecord span);
  // Marks the request failed (kept whatever the sampler said), without a span to say so.
  void mark_failed() { failed_.store(true, std::memory_order_relaxed); }
  // Failed by mark_failed() or by a span added with the error status.
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  // The latency the slow rule compares: time to the first byte of a streamed answer, or the
  // whole request otherwise. Unset (negative): the root span's duration.
  void set_latency_ms(double ms) { latency_ms_.store(ms, std::memory_order_relaxed); }
  double latency_ms() const { return latency_ms_.load(std::memory_order_relaxed); }

  // Runs `hook` when the request ends, on the finishing thread, before the decision (e.g. to
  // turn a generation's time stamps into spans off the engine's thread).
  void at_end(std::function<void(RequestTrace&)> hook);

  // --- parts ---
  // One part is open from construction (the request's owner holds it).
  void open_part() { parts_.fetch_add(1, std::memory_order_relaxed); }
  // Ends a part; the last one finishes the trace here (Tracer::finish).
  void end_part();
  // Whether the caller holds the only open part and no end hook is set: then ending it is the
  // trace's end, and the spans added so far are all it will have.
  bool ends_with_this_part() const {
    return parts_.load(std::memory_order_acquire) == 1 &&
           !has_end_hooks_.load(std::memory_order_acquire);
  }
  // The same from a thread that must not do the finishing work (the engine's): the last part
  // hands the trace to the tracer's own thread.
  void end_part_elsewhere();
  // Ends the caller's part without finishing the trace when it is the last one (for
  // Tracer::end_early, which decides and counts in finish()'s place): true.
  // Otherwise nothing changes: false.
  bool end_part_unfinished() {
    int last = 1;
    return parts_.compare_exchange_strong(last, 0, std::memory_order_acq_rel);
  }

  // --- time ---
  // Unix nanoseconds of a steady-clock instant, anchored at the trace's start (the system
  // clock's offset from the steady clock is read at most once a second, for every trace).
  std::int64_t unix_ns(std::chrono::steady_clock::time_point at) const {
    return anchor_unix_ns_ + (at - anchor_).count();
  }
  std::int64_t now_ns() const { return unix_ns(std::chrono::steady_clock::now()); }
  // When the trace started (its root span's start), in Unix nanoseconds.
  std::int64_t start_ns() const { return anchor_unix_ns_; }

  // --- for the tracer, at the end ---
  // Runs the end hooks (at_end), then takes the spans: one lock when no hook was set.
  std::vector<SpanRecord> take_spans();
  std::size_t dropped_spans() const;
  // Spans added so far.
  std::size_t span_count() const;

 private:
  Tracer* const tracer_;
  const TraceId trace_id_;
  const SpanId root_id_;
  const std::optional<SpanContext> parent_;
  const bool sampled_;
  const std::string tracestate_;
  const std::chrono::steady_clock::time_point anchor_;
  const std::int64_t anchor_unix_ns_;
  std::string request_id_;  // the caller's; set before the request is shared with other threads
  std::atomic<int> parts_{1};
  std::atomic<bool> failed_{false};
  std::atomic<double> latency_ms_{-1};
  std::atomic<bool> has_end_hooks_{false};

  mutable std::mutex mutex_;
  std::string route_;                                          // guarded by mutex_
  std::string tenant_;                                         // guarded by mutex_
  std::vector<SpanRecord> spans_;                              // guarded by mutex_
  std::size_t dropped_ = 0;                                    // guarded by mutex_
  std::vector<std::function<void(RequestTrace&)>> end_hooks_;  // guarded by mutex_
};

}  // namespace supportd::obs::trace
