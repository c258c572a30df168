// Decoding an upstream stream's event (see stream_event.h). Every member is checked for its
// type before it is read: a choice that is not an object is skipped rather than thrown over.
#include "engine/upstream/stream_event.h"

#include <boost/json.hpp>

namespace supportd::engine::upstream {

namespace json = boost::json;

std::optional<StreamEvent> decode_stream_event(std::string_view data) {
  StreamEvent event;
  if (data == "[DONE]") {
    event.done = true;
    return event;
  }
  boost::system::error_code ec;
  const json::value value = json::parse(data, ec);
  if (ec || !value.is_object()) return std::nullopt;
  const json::object& o = value.as_object();
  if (const json::value* error = o.if_contains("error")) {
    event.error = json::serialize(*error);
    return event;
  }
  if (const json::value* usage = o.if_contains("usage"); usage && usage->is_object()) {
    const json::object& u = usage->as_object();
    if (const json::value* p = u.if_contains("prompt_tokens"); p && p->is_int64())
      event.prompt_tokens = static_cast<int>(p->as_int64());
    if (const json::value* c = u.if_contains("completion_tokens"); c && c->is_int64())
      event.completion_tokens = static_cast<int>(c->as_int64());
  }
  const json::value* choices = o.if_contains("choices");
  if (choices == nullptr || !choices->is_array() || choices->as_array().empty()) return event;
  const json::object* choice = choices->as_array()[0].if_object();
  if (choice == nullptr) return event;
  const json::value* text = nullptr;
  if (const json::value* delta = choice->if_contains("delta"); delta && delta->is_object()) {
    text = delta->as_object().if_contains("content");
  } else {
    text = choice->if_contains("text");
  }
  if (text && text->is_string()) event.text = std::string(text->as_string());
  if (const json::value* reason = choice->if_contains("finish_reason");
      reason && reason->is_string()) {
    event.reason = reason->as_string() == "length" ? FinishReason::kLength : FinishReason::kStop;
  }
  return event;
}

}  // namespace supportd::engine::upstream
