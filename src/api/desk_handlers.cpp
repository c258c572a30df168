// The desk's HTTP endpoints (see desk_handlers.h): each reads and checks its body and query, calls
// the desk, and turns the result (or its error, through errors.h) into a response.
#include "api/desk_handlers.h"

#include <boost/json.hpp>

#include <charconv>
#include <limits>

#include "api/access.h"
#include "api/desk_answers.h"
#include "api/errors.h"
#include "api/json_body.h"
#include "core/utf8.h"
#include "desk/desk.h"
#include "http/reply_stream.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

constexpr std::int64_t kMaxHistoryLimit = 1000;  // messages per GET .../messages

// The body as a JSON object ({} when empty), or an error naming what is wrong.
Result<json::object> body_object(const http::Request& request) {
  return parse_json_object(request.body, true);
}

// A query parameter that must be a whole number in [min, max] written in plain digits;
// `fallback` when it is absent.
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

json::object conversation_json(const store::Conversation& c) {
  json::object o{{"session", c.session},  {"tenant", c.tenant},
                 {"user", c.user},        {"handoff", store::handoff_name(c.handoff)},
                 {"agent", c.agent},      {"waiting_since_ms", c.handoff_ms},
                 {"last_seq", c.last_seq}};
  if (c.csat) o["csat"] = *c.csat;
  return o;
}

http::Response history_response(const Result<desk::History>& history) {
  if (!history) return error_response(history.error());
  return http::Response::json(200, history_json(*history));
}

// Common head of every desk handler: the desk, the tenant and the body.
struct Call {
  desk::Desk* desk = nullptr;
  std::string tenant;
  json::object body;
};

Result<Call> begin(Services& services, const http::Request& request, bool with_body) {
  if (services.desk == nullptr)
    return Error::make(ErrorCode::kNotFound, "the desk is not enabled on this server");
  auto tenant = tenant_of(services.access, request);
  if (!tenant) return tenant.error();
  Call call{services.desk, *tenant, {}};
  if (with_body) {
    auto body = body_object(request);
    if (!body) return body.error();
    call.body = std::move(body).value();
  }
  return call;
}

std::string session_param(const http::Request& request) {
  return std::string(request.param("session"));
}

}  // namespace

http::Response start_session(Services& services, http::Request& request) {
  auto call = begin(services, request, true);
  if (!call) return error_response(call.error());
  auto user = string_field(call->body, "user", false);
  if (!user) return error_response(user.error());
  auto conversation = call->desk->start(call->tenant, user->empty() ? "web" : *user);
  if (!conversation) return error_response(conversation.error());
  http::Response r = http::Response::json(201, json::serialize(conversation_json(*conversation)));
  return r;
}

http::Response post_message(Services& services, http::Request& request) {
  auto call = begin(services, request, true);
  if (!call) return error_response(call.error());
  auto text = string_field(call->body, "text", true);
  if (!text) return error_response(text.error());
  auto stream = stream_field(call->body);
  if (!stream) return error_response(stream.error());
  auto reply = std::make_shared<http::ReplyStream>();
  auto sink = *stream ? make_answer_event_sink(reply) : make_answer_json_sink(reply, true);
  call->desk->ask(call->tenant, session_param(request), std::move(text).value(), sink);
  return http::Response::deferred(reply);
}

http::Response get_messages(Services& services, http::Request& request) {
  auto call = begin(services, request, false);
  if (!call) return error_response(call.error());
  auto limit = integer_param(request, "limit", 50, 1, kMaxHistoryLimit);
  if (!limit) return error_response(limit.error());
  auto before = integer_param(request, "before", 0, 0, std::numeric_limits<std::int64_t>::max());
  if (!before) return error_response(before.error());
  return history_response(call->desk->history(call->tenant, session_param(request),
                                              static_cast<std::size_t>(*limit), *before));
}

http::Response post_feedback(Services& services, http::Request& request) {
  auto call = begin(services, request, true);
  if (!call) return error_response(call.error());
  const std::string session = session_param(request);
  const json::value* csat = call->body.if_contains("csat");
  const json::value* thumb = call->body.if_contains("thumb");
  Status status;
  if (csat != nullptr) {
    if (!csat->is_int64())
      return error_response(Error::invalid("csat must be an integer from 1 to 5", "csat"));
    status =
        call->desk->rate_conversation(call->tenant, session, static_cast<int>(csat->as_int64()));
  } else if (thumb != nullptr) {
    const json::value* seq = call->body.if_contains("seq_id");
    if (seq == nullptr || !seq->is_int64())
      return error_response(Error::invalid("seq_id must be the answer's seq_id", "seq_id"));
    if (!thumb->is_string() || (thumb->as_string() != "up" && thumb->as_string() != "down")) {
      return error_response(Error::invalid("thumb must be \"up\" or \"down\"", "thumb"));
    }
    status =
        call->desk->rate_answer(call->tenant, session, seq->as_int64(), thumb->as_string() == "up");
  } else {
    return error_response(Error::invalid("give either {\"seq_id\", \"thumb\"} or {\"csat\"}"));
  }
  if (!status) return error_response(status.error());
  return http::Response::json(200, R"({"ok":true})");
}

http::Response post_handoff(Services& services, http::Request& request) {
  auto call = begin(services, request, false);
  if (!call) return error_response(call.error());
  auto changed =
      call->desk->request_human(call->tenant, session_param(request), desk::HandoffReason::kAsked);
  if (!changed) return error_response(changed.error());
  return http::Response::json(200, json::serialize(conversation_json(*changed)));
}

http::Response post_answer(Services& services, http::Request& request) {
  auto call = begin(services, request, true);
  if (!call) return error_response(call.error());
  auto question = string_field(call->body, "question", true);
  if (!question) return error_response(question.error());
  auto stream = stream_field(call->body);
  if (!stream) return error_response(stream.error());
  const bool streaming = *stream;
  if (!streaming) {
    // The FAQ fast path and in-process cache hits answer on this thread, without a hop to the
    // desk's workers.
    if (auto fast = call->desk->answer_from_faq(*question)) {
      return http::Response::json(200, answer_json(*fast));
    }
    if (auto cached = call->desk->answer_from_cache(call->tenant, *question)) {
      return http::Response::json(200, answer_json(*cached));
    }
  }
  auto reply = std::make_shared<http::ReplyStream>();
  call->desk->answer(
      call->tenant, std::move(question).value(),
      streaming ? make_answer_event_sink(reply) : make_answer_json_sink(reply, false));
  return http::Response::deferred(reply);
}

http::Response agent_list(Services& services, http::Request& request) {
  auto call = begin(services, request, false);
  if (!call) return error_response(call.error());
  if (const auto state = request.query_param("state"); state && *state != "waiting") {
    return error_response(Error::invalid(
        "state must be \"waiting\" (the list of conversations waiting for a person)", "state"));
  }
  auto list = call->desk->waiting(call->tenant);
  if (!list) return error_response(list.error());
  json::array conversations;
  for (const auto& c : list->conversations)
    conversations.push_back(conversation_json(c));
  return http::Response::json(
      200, json::serialize(json::object{{"conversations", std::move(conversations)},
                                        {"partial", list->partial}}));
}

http::Response agent_conversation(Services& services, http::Request& request) {
  auto call = begin(services, request, false);
  if (!call) return error_response(call.error());
  return history_response(call->desk->history(call->tenant, session_param(request), 200, 0));
}

http::Response agent_action(Services& services, http::Request& request, const std::string& action) {
  auto call = begin(services, request, true);
  if (!call) return error_response(call.error());
  auto agent = string_field(call->body, "agent", false);
  if (!agent) return error_response(agent.error());
  std::string name = agent->empty() ? std::string(request.header("x-agent")) : *agent;
  if (name.empty())
    return error_response(Error::invalid("agent is required (in the body or X-Agent)", "agent"));
  const std::string session = session_param(request);
  if (action == "reply") {
    auto text = string_field(call->body, "text", true);
    if (!text) return error_response(text.error());
    auto seq = call->desk->agent_reply(call->tenant, session, name, *text);
    if (!seq) return error_response(seq.error());
    return http::Response::json(200, json::serialize(json::object{{"seq_id", *seq}}));
  }
  Result<store::Conversation> changed = Error::invalid("unknown action");
  if (action == "take") changed = call->desk->take(call->tenant, session, name);
  if (action == "close") changed = call->desk->close(call->tenant, session, name);
  if (action == "release") changed = call->desk->release(call->tenant, session, name);
  if (!changed) {
    if (action == "take" && changed.error().param == "handoff") {  // a state conflict
      // The store's message says the state (and who holds it); the code lets clients tell
      // another agent's take from a conversation no longer waiting (back with the bot, closed).
      auto now = call->desk->history(call->tenant, session, 1, 0);
      const bool held = now && now->conversation.handoff == store::Handoff::kTaken;
      return http::error_response(409, changed.error().message, "invalid_request_error",
                                  held ? "already_taken" : "not_waiting");
    }
    return error_response(changed.error());
  }
  return http::Response::json(200, json::serialize(conversation_json(*changed)));
}

http::Response reload_knowledge(Services& services, http::Request& request) {
  auto call = begin(services, request, false);
  if (!call) return error_response(call.error());
  auto reloaded = call->desk->reload_knowledge();
  if (!reloaded) return error_response(reloaded.error());
  return http::Response::json(
      200, json::serialize(json::object{{"reloaded", *reloaded},
                                        {"version", call->desk->knowledge_version()}}));
}

}  // namespace supportd::api
