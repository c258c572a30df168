#include "api/openai_handlers.h"

#include <atomic>
#include <chrono>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "api/completion_sinks.h"
#include "api/errors.h"
#include "api/openai_request.h"
#include "engine/engine.h"
#include "http/reply_stream.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string next_id(const char* prefix) {
  static std::atomic<std::uint64_t> counter{0};
  static const std::uint64_t start = static_cast<std::uint64_t>(unix_now()) << 20;
  return fmt::format("{}-{:x}", prefix, start + counter.fetch_add(1));
}

}  // namespace

http::Response list_models(Services& services, http::Request&) {
  const auto& card = services.engine->model();
  json::object model{{"id", card.id},
                     {"object", "model"},
                     {"created", 0},
                     {"owned_by", card.owned_by},
                     {"description", card.description},
                     {"context_length", card.context_length},
                     {"meaningless_text", card.meaningless_text}};
  return http::Response::json(
      200, json::serialize(json::object{{"object", "list"}, {"data", json::array{model}}}));
}

http::Response create_completion(Services& services, http::Request& request, bool chat) {
  engine::Engine& engine = *services.engine;
  auto call = parse_completion_call(request.body, chat);
  if (!call) return error_response(call.error());
  const auto& card = engine.model();
  if (!call->model.empty() && call->model != card.id) {
    return error_response(Error{
        ErrorCode::kNotFound,
        "model '" + call->model + "' is not served here (this server serves '" + card.id + "')",
        "model"});
  }

  CompletionFormat format{chat, next_id(chat ? "chatcmpl" : "cmpl"), card.id, unix_now(),
                          call->include_usage};
  call->request.id = format.id;
  auto reply = std::make_shared<http::ReplyStream>();
  auto sink =
      call->stream ? make_streaming_sink(reply, format) : make_collecting_sink(reply, format);
  auto id = engine.submit(std::move(call->request), sink);
  if (!id) return error_response(id.error());
  reply->on_cancel([&engine, id = *id] { engine.cancel(id); });
  http::Response response = http::Response::deferred(reply);
  return response;
}

http::Response health(Services&, http::Request&) {
  return http::Response::json(200, R"({"status":"ok"})");
}

http::Response ready(Services& services, http::Request&) {
  const bool ok = services.engine->ready();
  json::object body{{"ready", ok},
                    {"status", ok ? "ready" : "warming_up"},
                    {"model", services.engine->model().id}};
  return http::Response::json(ok ? 200 : 503, json::serialize(body));
}

}  // namespace supportd::api
