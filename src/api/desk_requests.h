// What the desk's requests and socket messages say, decoded and checked before the desk is
// called: the JSON bodies of its HTTP routes (docs/api.md, "The customer-service desk"), their
// integer query parameters, and the messages a customer's WebSocket sends. Each refusal is an
// invalid_argument error naming the field. Kept apart from the handlers so that the decoding
// is a function of the bytes alone (the fuzz target fuzz/targets/desk_body.cpp drives it).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "http/message.h"

namespace supportd::api {

// POST /v1/sessions: {"user"?: string}; empty when not given.
Result<std::string> decode_start_body(std::string_view body);

// POST /v1/sessions/{session}/messages: {"text": string, "stream"?: bool}; and
// POST /v1/answer: {"question": string, "stream"?: bool}.
struct AskBody {
  std::string text;
  bool stream = false;
};
Result<AskBody> decode_message_body(std::string_view body);
Result<AskBody> decode_answer_body(std::string_view body);

// POST .../feedback: {"csat": integer} for the conversation, or {"seq_id": integer, "thumb":
// "up"|"down"} for one answer. The csat's range is the desk's to check.
struct FeedbackBody {
  std::optional<std::int64_t> csat;
  std::int64_t seq_id = 0;
  bool thumb_up = false;
};
Result<FeedbackBody> decode_feedback_body(std::string_view body);

// POST /v1/agent/conversations/{session}/{action}: {"agent"?: string, "text": string (reply
// only)}; the agent falls back to `agent_header` (X-Agent) and is required.
struct AgentBody {
  std::string agent;
  std::string text;  // "reply" only
};
Result<AgentBody> decode_agent_body(std::string_view body, std::string_view action,
                                    std::string_view agent_header);

// A query parameter that must be a whole number in [min, max] written in plain digits;
// `fallback` when it is absent.
Result<std::int64_t> integer_param(const http::Request& request, const char* name,
                                   std::int64_t fallback, std::int64_t min, std::int64_t max);

// A message a customer's socket sent: a heartbeat, a message to ask, or one to refuse (with why).
struct SocketMessage {
  enum class Kind { kPing, kAsk, kRefused };
  Kind kind = Kind::kRefused;
  std::string text;  // kAsk: the customer's text; kRefused: why, for the invalid_message error
};
SocketMessage decode_socket_message(std::string_view message);

}  // namespace supportd::api
