// The desk's HTTP endpoints (see desk_handlers.h): each reads and checks its body and query, calls
// the desk, and turns the result (or its error, through errors.h) into a response.
#include "api/desk_handlers.h"

#include <boost/json.hpp>

#include <limits>

#include "api/access.h"
#include "api/desk_answers.h"
#include "api/desk_requests.h"
#include "api/errors.h"
#include "core/utf8.h"
#include "desk/desk.h"
#include "http/reply_stream.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

constexpr std::int64_t kMaxHistoryLimit = 1000;  // messages per GET .../messages

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

// Common head of every desk handler: the desk and the tenant.
struct Call {
  desk::Desk* desk = nullptr;
  std::string tenant;
};

// Who may call: a customer's key, or for the agent routes (`role` kAgent) an agent's.
Result<Call> begin(Services& services, const http::Request& request,
                   KeyRole role = KeyRole::kCustomer) {
  if (services.desk == nullptr)
    return Error::make(ErrorCode::kNotFound, "the desk is not enabled on this server");
  auto tenant = role == KeyRole::kAgent ? agent_tenant_of(services.access, request)
                                        : tenant_of(services.access, request);
  if (!tenant) return tenant.error();
  return Call{services.desk, *tenant};
}

std::string session_param(const http::Request& request) {
  return std::string(request.param("session"));
}

}  // namespace

http::Response start_session(Services& services, http::Request& request) {
  auto call = begin(services, request);
  if (!call) return error_response(call.error());
  auto user = decode_start_body(request.body);
  if (!user) return error_response(user.error());
  auto conversation = call->desk->start(call->tenant, user->empty() ? "web" : *user);
  if (!conversation) return error_response(conversation.error());
  http::Response r = http::Response::json(201, json::serialize(conversation_json(*conversation)));
  return r;
}

http::Response post_message(Services& services, http::Request& request) {
  auto call = begin(services, request);
  if (!call) return error_response(call.error());
  auto body = decode_message_body(request.body);
  if (!body) return error_response(body.error());
  auto reply = std::make_shared<http::ReplyStream>();
  auto sink = body->stream ? make_answer_event_sink(reply) : make_answer_json_sink(reply, true);
  call->desk->ask(call->tenant, session_param(request), std::move(body->text), sink);
  return http::Response::deferred(reply);
}

http::Response get_messages(Services& services, http::Request& request) {
  auto call = begin(services, request);
  if (!call) return error_response(call.error());
  auto limit = integer_param(request, "limit", 50, 1, kMaxHistoryLimit);
  if (!limit) return error_response(limit.error());
  auto before = integer_param(request, "before", 0, 0, std::numeric_limits<std::int64_t>::max());
  if (!before) return error_response(before.error());
  return history_response(call->desk->history(call->tenant, session_param(request),
                                              static_cast<std::size_t>(*limit), *before));
}

http::Response post_feedback(Services& services, http::Request& request) {
  auto call = begin(services, request);
  if (!call) return error_response(call.error());
  auto feedback = decode_feedback_body(request.body);
  if (!feedback) return error_response(feedback.error());
  const std::string session = session_param(request);
  const Status status =
      feedback->csat
          ? call->desk->rate_conversation(call->tenant, session, static_cast<int>(*feedback->csat))
          : call->desk->rate_answer(call->tenant, session, feedback->seq_id, feedback->thumb_up);
  if (!status) return error_response(status.error());
  return http::Response::json(200, R"({"ok":true})");
}

http::Response post_handoff(Services& services, http::Request& request) {
  auto call = begin(services, request);
  if (!call) return error_response(call.error());
  auto changed =
      call->desk->request_human(call->tenant, session_param(request), desk::HandoffReason::kAsked);
  if (!changed) return error_response(changed.error());
  return http::Response::json(200, json::serialize(conversation_json(*changed)));
}

http::Response post_answer(Services& services, http::Request& request) {
  auto call = begin(services, request);
  if (!call) return error_response(call.error());
  auto body = decode_answer_body(request.body);
  if (!body) return error_response(body.error());
  std::string& question = body->text;
  const bool streaming = body->stream;
  if (!streaming) {
    // The FAQ fast path and in-process cache hits answer on this thread, without a hop to the
    // desk's workers.
    if (auto fast = call->desk->answer_from_faq(question)) {
      return http::Response::json(200, answer_json(*fast));
    }
    if (auto cached = call->desk->answer_from_cache(call->tenant, question)) {
      return http::Response::json(200, answer_json(*cached));
    }
  }
  auto reply = std::make_shared<http::ReplyStream>();
  call->desk->answer(
      call->tenant, std::move(question),
      streaming ? make_answer_event_sink(reply) : make_answer_json_sink(reply, false));
  return http::Response::deferred(reply);
}

http::Response agent_list(Services& services, http::Request& request) {
  auto call = begin(services, request, KeyRole::kAgent);
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
  auto call = begin(services, request, KeyRole::kAgent);
  if (!call) return error_response(call.error());
  return history_response(call->desk->history(call->tenant, session_param(request), 200, 0));
}

http::Response agent_action(Services& services, http::Request& request, const std::string& action) {
  auto call = begin(services, request, KeyRole::kAgent);
  if (!call) return error_response(call.error());
  auto body = decode_agent_body(request.body, action, request.header("x-agent"));
  if (!body) return error_response(body.error());
  const std::string& name = body->agent;
  const std::string session = session_param(request);
  if (action == "reply") {
    auto seq = call->desk->agent_reply(call->tenant, session, name, body->text);
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

http::Response reload_knowledge(Services& services, http::Request&) {
  // Behind the admin key (routes.cpp): the knowledge base is every tenant's, not a caller's.
  if (services.desk == nullptr) {
    return error_response(
        Error::make(ErrorCode::kNotFound, "the desk is not enabled on this server"));
  }
  auto reloaded = services.desk->reload_knowledge();
  if (!reloaded) return error_response(reloaded.error());
  return http::Response::json(
      200, json::serialize(json::object{{"reloaded", *reloaded},
                                        {"version", services.desk->knowledge_version()}}));
}

}  // namespace supportd::api
