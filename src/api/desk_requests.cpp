// Decoding the desk's request bodies and socket messages (see desk_requests.h).
#include "api/desk_requests.h"

#include <boost/json.hpp>

#include <charconv>

#include "api/json_body.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

// The body as a JSON object ({} when empty), or an error naming what is wrong.
Result<json::object> body_object(std::string_view body) {
  return parse_json_object(body, true);
}

// "stream": true or false; absent or null: false.
Result<bool> stream_field(const json::object& o) {
  const json::value* v = o.if_contains("stream");
  if (v == nullptr || v->is_null()) return false;
  if (!v->is_bool()) return Error::invalid("stream must be true or false", "stream");
  return v->as_bool();
}

Result<std::string> string_field(const json::object& o, const char* key, bool required) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) {
    if (required) return Error::invalid(std::string(key) + " is required", key);
    return std::string();
  }
  if (!v->is_string()) return Error::invalid(std::string(key) + " must be a string", key);
  return std::string(v->as_string());
}

// A body of a text field (required) and "stream".
Result<AskBody> decode_ask(std::string_view body, const char* text_key) {
  auto o = body_object(body);
  if (!o) return o.error();
  auto text = string_field(*o, text_key, true);
  if (!text) return text.error();
  auto stream = stream_field(*o);
  if (!stream) return stream.error();
  return AskBody{std::move(text).value(), *stream};
}

}  // namespace

Result<std::string> decode_start_body(std::string_view body) {
  auto o = body_object(body);
  if (!o) return o.error();
  return string_field(*o, "user", false);
}

Result<AskBody> decode_message_body(std::string_view body) {
  return decode_ask(body, "text");
}

Result<AskBody> decode_answer_body(std::string_view body) {
  return decode_ask(body, "question");
}

Result<FeedbackBody> decode_feedback_body(std::string_view body) {
  auto o = body_object(body);
  if (!o) return o.error();
  FeedbackBody feedback;
  const json::value* csat = o->if_contains("csat");
  const json::value* thumb = o->if_contains("thumb");
  if (csat != nullptr) {
    if (!csat->is_int64()) return Error::invalid("csat must be an integer from 1 to 5", "csat");
    feedback.csat = csat->as_int64();
    return feedback;
  }
  if (thumb == nullptr) return Error::invalid("give either {\"seq_id\", \"thumb\"} or {\"csat\"}");
  const json::value* seq = o->if_contains("seq_id");
  if (seq == nullptr || !seq->is_int64())
    return Error::invalid("seq_id must be the answer's seq_id", "seq_id");
  if (!thumb->is_string() || (thumb->as_string() != "up" && thumb->as_string() != "down"))
    return Error::invalid("thumb must be \"up\" or \"down\"", "thumb");
  feedback.seq_id = seq->as_int64();
  feedback.thumb_up = thumb->as_string() == "up";
  return feedback;
}

Result<AgentBody> decode_agent_body(std::string_view body, std::string_view action,
                                    std::string_view agent_header) {
  auto o = body_object(body);
  if (!o) return o.error();
  auto agent = string_field(*o, "agent", false);
  if (!agent) return agent.error();
  AgentBody decoded{agent->empty() ? std::string(agent_header) : *agent, {}};
  if (decoded.agent.empty())
    return Error::invalid("agent is required (in the body or X-Agent)", "agent");
  if (action == "reply") {
    auto text = string_field(*o, "text", true);
    if (!text) return text.error();
    decoded.text = std::move(text).value();
  }
  return decoded;
}

Result<std::int64_t> integer_param(const http::Request& request, const char* name,
                                   std::int64_t fallback, std::int64_t min, std::int64_t max) {
  const auto text = request.query_param(name);
  if (!text) return fallback;
  std::int64_t value = 0;
  const char* end = text->data() + text->size();
  const auto [stop, ec] = std::from_chars(text->data(), end, value);
  const bool digits = !text->empty() && (*text)[0] != '-' && (*text)[0] != '+';
  if (!digits || ec != std::errc() || stop != end || value < min || value > max) {
    return Error::invalid(std::string(name) + " must be a whole number from " +
                              std::to_string(min) + " to " + std::to_string(max),
                          name);
  }
  return value;
}

SocketMessage decode_socket_message(std::string_view message) {
  boost::system::error_code ec;
  const json::value value = json::parse(message, ec);
  const json::object* object = ec ? nullptr : value.if_object();
  const json::value* type = object ? object->if_contains("type") : nullptr;
  if (type == nullptr || !type->is_string() || type->as_string().empty())
    return {SocketMessage::Kind::kRefused,
            "send JSON like {\"type\": \"message\", \"text\": \"...\"}"};
  if (type->as_string() == "ping") return {SocketMessage::Kind::kPing, {}};
  const json::value* text = object->if_contains("text");
  if (type->as_string() != "message" || text == nullptr || !text->is_string())
    return {SocketMessage::Kind::kRefused, "unknown message type, or no \"text\""};
  return {SocketMessage::Kind::kAsk, std::string(text->as_string())};
}

}  // namespace supportd::api
