// One event of an OpenAI-compatible upstream's stream (the data of a server-sent event, as
// SseParser splits it) decoded into what the upstream engine uses: an error, usage counts, the
// first choice's text and finish reason. The upstream is a server supportd does not control:
// any shape of JSON decodes to something or is skipped, never throws.
// Thread-safety: a pure function.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/request.h"

namespace supportd::engine::upstream {

struct StreamEvent {
  bool done = false;                 // "[DONE]": the stream's end
  std::optional<std::string> error;  // the event's "error", serialized: the call failed
  std::optional<int> prompt_tokens;  // usage.prompt_tokens
  std::optional<int> completion_tokens;
  std::string text;                    // choices[0].delta.content or choices[0].text
  std::optional<FinishReason> reason;  // choices[0].finish_reason
};

// The event in `data`; nullopt when it is not a JSON object (such events are skipped).
std::optional<StreamEvent> decode_stream_event(std::string_view data);

}  // namespace supportd::engine::upstream
