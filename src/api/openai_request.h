// Parses and validates OpenAI-style request bodies (/v1/chat/completions, /v1/completions)
// into engine requests. Every rejection names the offending field.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "engine/request.h"

namespace supportd::api {

// A request's "timeout" (or X-Timeout header): seconds it may wait to start, in this range.
inline constexpr double kMinTimeout = 0.001;
inline constexpr double kMaxTimeout = 86400;

struct CompletionCall {
  engine::GenerationRequest request;
  std::string model;  // as sent; empty when omitted
  bool stream = false;
  bool include_usage = false;               // stream_options.include_usage
  std::optional<sched::Priority> priority;  // "priority": "high" | "normal" | "low"
  std::optional<double> timeout_s;          // "timeout": seconds the request may wait to start
};

// `chat`: the body of /v1/chat/completions, else of /v1/completions.
Result<CompletionCall> parse_completion_call(std::string_view body, bool chat);

}  // namespace supportd::api
