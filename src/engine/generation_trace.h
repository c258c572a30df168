// A finished generation as spans, from the time stamps the engine left on its completion
// (request.h: Timings, Phases), by the OpenTelemetry GenAI conventions: one span named
// "{operation} {model}" with the request's and the response's gen_ai.* attributes and the
// latency keys vLLM and SGLang use (gen_ai.latency.*, seconds), and exactly three children:
// queue (submission to start), prefill (start to the first token: its chunks, tokens computed
// and reused), decode (first token to the end). Preemption and resume, a deadline refusal and
// a cancellation are events on the child they fall in. An engine error sets the status and
// error.type.
// Called by the request's owner (api/, desk/) when the request ends: never on the engine's
// thread. Pure function of its arguments; the trace is thread-safe.
#pragma once

#include <string>

#include "engine/engine.h"
#include "engine/request.h"
#include "obs/trace/request_trace.h"

namespace supportd::engine {

struct GenerationLabels {
  const char* operation = "chat";  // gen_ai.operation.name: "chat" or "text_completion"
  std::string model;               // gen_ai.request.model and gen_ai.response.model
  std::string response_id;         // gen_ai.response.id, when there is one
  int max_tokens = -1;             // gen_ai.request.max_tokens; -1: the server's default
  double temperature = -1;         // gen_ai.request.temperature; negative: not set
  double top_p = -1;               // gen_ai.request.top_p; negative: not set
  Priority priority = Priority::kNormal;
  std::string tenant;
};

// Labels from the request as it was submitted.
GenerationLabels generation_labels(const GenerationRequest& request, std::string model);

// Adds the generation's spans to `trace`, the generation a child of `parent` (empty: the
// trace's root). `submitted`: when the request was handed to the engine (the stamps count
// from it). Returns the generation span's id.
obs::trace::SpanId add_generation_spans(obs::trace::RequestTrace& trace, obs::trace::SpanId parent,
                                        const GenerationLabels& labels, Clock::time_point submitted,
                                        const Completion& completion);

// A request the engine refused at submission (queue full, deadline, shutting down): the
// generation span, failed with `error`'s kind, and its queue child, both at `at`.
void add_refused_generation(obs::trace::RequestTrace& trace, obs::trace::SpanId parent,
                            const GenerationLabels& labels, Clock::time_point at,
                            const Error& error);

// Submits `request` to `engine` with its generation joining the current request's trace
// (obs/trace/current.h) as a child of the thread's current span. The sink keeps a copy of the
// completion on the engine's thread and nothing more; the spans are built when the request
// ends, by whoever finishes it. A refused submission adds a refused generation span. Without a
// current trace: engine.submit(request, sink).
Result<Engine::RequestId> submit_traced(Engine& engine, GenerationRequest request,
                                        std::shared_ptr<GenerationSink> sink);

}  // namespace supportd::engine
