// A finished generation's spans from its stamps (see generation_trace.h).
#include "engine/generation_trace.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "obs/trace/current.h"

namespace supportd::engine {
namespace {

using obs::trace::AttributeValue;
using obs::trace::SpanEvent;
using obs::trace::SpanId;
using obs::trace::SpanRecord;

// Where each phase began and ended, in milliseconds from submission (negative: it did not).
struct Timeline {
  double started = -1;
  double first_token = -1;
  double end = 0;
};

Timeline timeline(const Completion& c) {
  Timeline t;
  t.end = std::max(0.0, c.timings.total_ms);
  t.first_token = c.timings.first_token_ms;
  if (c.phases.started_ms >= 0) {
    t.started = c.phases.started_ms;
  } else if (t.first_token >= 0 || c.timings.queued_ms < t.end) {
    t.started = c.timings.queued_ms;  // an engine without phase stamps: admission time
  }
  if (c.phases.refused_ms >= 0) t.started = -1;  // refused while waiting: never started
  return t;
}

std::vector<std::string> finish_reasons(FinishReason reason) {
  return {finish_reason_name(reason)};
}

void set_labels(SpanRecord& span, const GenerationLabels& labels) {
  span.set("gen_ai.operation.name", labels.operation);
  span.set("gen_ai.request.model", labels.model);
  if (labels.max_tokens > 0) span.set("gen_ai.request.max_tokens", labels.max_tokens);
  if (labels.temperature >= 0) span.set("gen_ai.request.temperature", labels.temperature);
  if (labels.top_p >= 0) span.set("gen_ai.request.top_p", labels.top_p);
  span.set("supportd.priority", sched::priority_name(labels.priority));
  if (!labels.tenant.empty()) span.set("supportd.tenant", labels.tenant);
}

class Builder {
 public:
  Builder(obs::trace::RequestTrace& trace, Clock::time_point submitted)
      : trace_(trace), submitted_(submitted) {}

  std::int64_t at(double ms) const {
    return trace_.unix_ns(submitted_ + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double, std::milli>(ms)));
  }
  SpanRecord span(const char* name, const SpanId& parent, double from_ms, double to_ms) const {
    SpanRecord s = trace_.begin_span(name, parent);
    s.start_ns = at(from_ms);
    s.end_ns = at(std::max(from_ms, to_ms));
    return s;
  }

 private:
  obs::trace::RequestTrace& trace_;
  Clock::time_point submitted_;
};

// The child among `spans` whose time holds `ns` (the last one that starts by then), else the
// generation span.
SpanRecord& holder(std::vector<SpanRecord>& children, SpanRecord& generation, std::int64_t ns) {
  SpanRecord* found = &generation;
  for (auto& child : children) {
    if (child.start_ns <= ns) found = &child;
  }
  return *found;
}

}  // namespace

GenerationLabels generation_labels(const GenerationRequest& request, std::string model) {
  GenerationLabels labels;
  labels.operation = request.chat ? "chat" : "text_completion";
  labels.model = std::move(model);
  labels.response_id = request.id;
  labels.max_tokens = request.max_tokens;
  labels.temperature = request.sampling.temperature;
  labels.top_p = request.sampling.top_p;
  labels.priority = request.priority;
  labels.tenant = request.tenant;
  return labels;
}

SpanId add_generation_spans(obs::trace::RequestTrace& trace, SpanId parent,
                            const GenerationLabels& labels, Clock::time_point submitted,
                            const Completion& c) {
  const Builder b(trace, submitted);
  const Timeline t = timeline(c);
  SpanRecord generation = b.span("", parent, 0, t.end);
  generation.name = std::string(labels.operation) + " " + labels.model;
  set_labels(generation, labels);
  if (!labels.response_id.empty()) generation.set("gen_ai.response.id", labels.response_id);
  generation.set("gen_ai.response.model", labels.model);
  generation.set("gen_ai.response.finish_reasons", finish_reasons(c.reason));
  generation.set("gen_ai.usage.input_tokens", c.usage.prompt_tokens);
  generation.set("gen_ai.usage.output_tokens", c.usage.completion_tokens);
  generation.set("gen_ai.usage.cache_read.input_tokens", c.usage.cached_tokens);
  const double queue_ms = t.started >= 0 ? t.started : t.end;
  generation.set("gen_ai.latency.time_in_queue", queue_ms / 1e3);
  if (t.first_token >= 0) {
    generation.set("gen_ai.latency.time_to_first_token", t.first_token / 1e3);
    generation.set("gen_ai.latency.time_in_model_decode", (t.end - t.first_token) / 1e3);
  }
  generation.set("gen_ai.latency.e2e", t.end / 1e3);
  if (t.started >= 0) {
    const double prefilled = t.first_token >= 0 ? t.first_token : t.end;
    generation.set("gen_ai.latency.time_in_model_prefill", (prefilled - t.started) / 1e3);
    generation.set("gen_ai.latency.time_in_model_inference", (t.end - t.started) / 1e3);
  }
  if (c.reason == FinishReason::kError) {
    generation.fail(error_code_name(c.error.code), c.error.message);
  } else if (c.reason == FinishReason::kDeadline) {
    generation.fail("deadline_exceeded", c.error.message);
  }

  std::vector<SpanRecord> children;
  children.push_back(b.span("queue", generation.span_id, 0, queue_ms));
  if (t.started >= 0) {
    SpanRecord prefill = b.span("prefill", generation.span_id, t.started,
                                t.first_token >= 0 ? t.first_token : t.end);
    const int reused = std::max(c.usage.cached_tokens, c.phases.reused_tokens);
    prefill.set("supportd.prefill.tokens_computed", std::max(0, c.usage.prompt_tokens - reused));
    prefill.set("supportd.prefill.tokens_reused", reused);
    if (c.phases.chunk_count > 0) prefill.set("supportd.prefill.chunks", c.phases.chunk_count);
    const int stamped = std::min(c.phases.chunk_count, Phases::kMaxChunks);
    for (int i = 0; i < stamped; ++i) {
      const auto& chunk = c.phases.chunks[static_cast<std::size_t>(i)];
      prefill.event(
          b.at(chunk.end_ms), "chunk",
          {{"supportd.chunk.tokens", AttributeValue::of(std::int64_t{chunk.tokens})},
           {"supportd.chunk.ms", AttributeValue::of(double{chunk.end_ms - chunk.start_ms})}});
    }
    children.push_back(std::move(prefill));
  }
  if (t.first_token >= 0) {
    SpanRecord decode = b.span("decode", generation.span_id, t.first_token, t.end);
    decode.set("supportd.decode.tokens", c.usage.completion_tokens);
    children.push_back(std::move(decode));
  }
  const int pauses = std::min(c.phases.pause_count, Phases::kMaxPauses);
  for (int i = 0; i < pauses; ++i) {
    const auto& pause = c.phases.pauses[static_cast<std::size_t>(i)];
    const std::int64_t preempted = b.at(pause.preempted_ms);
    holder(children, generation, preempted).event(preempted, "preempted");
    if (pause.resumed_ms >= 0) {
      const std::int64_t resumed = b.at(pause.resumed_ms);
      holder(children, generation, resumed).event(resumed, "resumed");
    }
  }
  if (c.phases.pause_count > 0) generation.set("supportd.preemptions", c.phases.pause_count);
  if (c.phases.refused_ms >= 0)
    children.front().event(b.at(c.phases.refused_ms), "deadline_refused");
  if (c.reason == FinishReason::kCancelled) {
    const std::int64_t when = b.at(c.phases.cancelled_ms >= 0 ? c.phases.cancelled_ms : t.end);
    holder(children, generation, when).event(when, "cancelled");
  }
  const SpanId id = generation.span_id;
  trace.add(std::move(generation));
  for (auto& child : children)
    trace.add(std::move(child));
  return id;
}

void add_refused_generation(obs::trace::RequestTrace& trace, SpanId parent,
                            const GenerationLabels& labels, Clock::time_point at,
                            const Error& error) {
  const Builder b(trace, at);
  SpanRecord generation = b.span("", parent, 0, 0);
  generation.name = std::string(labels.operation) + " " + labels.model;
  set_labels(generation, labels);
  generation.fail(error_code_name(error.code), error.message);
  SpanRecord queue = b.span("queue", generation.span_id, 0, 0);
  queue.event(queue.start_ns, "refused");
  trace.add(std::move(generation));
  trace.add(std::move(queue));
}

namespace {

// What the sink leaves for the trace's end: the completion, copied on the engine's thread.
struct Stamped {
  GenerationLabels labels;
  SpanId parent;
  Clock::time_point submitted;
  Completion completion;         // set by the sink
  std::optional<Error> refused;  // set instead when submit() refused the request
};

class TracedSink final : public GenerationSink {
 public:
  TracedSink(std::shared_ptr<GenerationSink> inner, std::shared_ptr<obs::trace::RequestTrace> trace,
             std::shared_ptr<Stamped> stamped)
      : inner_(std::move(inner)), trace_(std::move(trace)), stamped_(std::move(stamped)) {}

  void on_version(std::string_view version) override { inner_->on_version(version); }
  void on_text(std::string_view text) override { inner_->on_text(text); }

  void on_done(const Completion& completion) override {
    stamped_->completion = completion;
    // Before the inner sink answers: the answer's end may end the request, and the spans must
    // be ready by then. Ends this part off the engine's thread if it is the last.
    std::shared_ptr<obs::trace::RequestTrace> trace = std::move(trace_);
    trace->end_part_elsewhere();
    inner_->on_done(completion);
  }

 private:
  const std::shared_ptr<GenerationSink> inner_;
  std::shared_ptr<obs::trace::RequestTrace> trace_;
  const std::shared_ptr<Stamped> stamped_;
};

}  // namespace

Result<Engine::RequestId> submit_traced(Engine& engine, GenerationRequest request,
                                        std::shared_ptr<GenerationSink> sink) {
  const obs::trace::Handoff current = obs::trace::capture();
  if (!current.trace) return engine.submit(std::move(request), std::move(sink));
  auto stamped = std::make_shared<Stamped>();
  stamped->labels = generation_labels(request, engine.model().id);
  stamped->parent = current.span;
  current.trace->open_part();
  current.trace->at_end([stamped](obs::trace::RequestTrace& trace) {
    if (stamped->refused) {
      add_refused_generation(trace, stamped->parent, stamped->labels, stamped->submitted,
                             *stamped->refused);
    } else {
      add_generation_spans(trace, stamped->parent, stamped->labels, stamped->submitted,
                           stamped->completion);
    }
  });
  stamped->submitted = Clock::now();
  auto id = engine.submit(std::move(request),
                          std::make_shared<TracedSink>(std::move(sink), current.trace, stamped));
  if (!id) {  // never queued: no completion will come
    stamped->refused = id.error();
    current.trace->end_part();
  }
  return id;
}

}  // namespace supportd::engine
