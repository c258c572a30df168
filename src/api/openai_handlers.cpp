// The OpenAI-compatible endpoints (see openai_handlers.h): models, completions and chat
// completions (priority, deadline, admission, then the engine), health and readiness.
#include "api/openai_handlers.h"

#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "api/access.h"
#include "api/completion_sinks.h"
#include "api/errors.h"
#include "api/fault_handlers.h"
#include "api/load_shedding.h"
#include "api/metering_sink.h"
#include "api/openai_request.h"
#include "api/serving_metrics.h"
#include "engine/engine.h"
#include "engine/generation_trace.h"
#include "engine/router/router_engine.h"
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

namespace {

json::object model_object(const engine::ModelCard& card) {
  json::object object{{"id", card.id},
                      {"object", "model"},
                      {"created", 0},
                      {"owned_by", card.owned_by},
                      {"description", card.description},
                      {"context_length", card.context_length},
                      {"meaningless_text", card.meaningless_text}};
  if (!card.sha256.empty()) {  // a router's version: what its file is
    object["sha256"] = card.sha256;
    object["bytes"] = card.bytes;
    object["architecture"] = card.architecture;
    object["quantization"] = card.quantization;
    object["chat_template_sha256"] = card.chat_template_sha256;
  }
  if (!card.state.empty()) object["state"] = card.state;
  return object;
}

}  // namespace

http::Response list_models(Services& services, http::Request&) {
  json::array data;
  for (const engine::ModelCard& card : services.engine->models())
    data.push_back(model_object(card));
  return http::Response::json(
      200, json::serialize(json::object{{"object", "list"}, {"data", std::move(data)}}));
}

http::Response retrieve_model(Services& services, http::Request& request) {
  for (const engine::ModelCard& card : services.engine->models()) {
    if (request.param("model") == card.id)
      return http::Response::json(200, json::serialize(model_object(card)));
  }
  return error_response(Error{ErrorCode::kNotFound,
                              "no model '" + std::string(request.param("model")) +
                                  "' here; GET /v1/models lists what this server serves",
                              "model", 0});
}

namespace {

// The request's class: the body's "priority", else the X-Priority header, else the key's default.
Result<sched::Priority> request_priority(const http::Request& request, const CompletionCall& call,
                                         const Caller& caller) {
  if (call.priority) return *call.priority;
  if (const auto header = request.header("x-priority"); !header.empty()) {
    if (auto p = sched::parse_priority(header)) return *p;
    return Error::invalid("X-Priority must be high, normal or low", "priority");
  }
  return caller.default_priority;
}

// The latest start: the body's "timeout" (seconds), else the X-Timeout header.
Result<std::optional<engine::Clock::time_point>> request_deadline(const http::Request& request,
                                                                  const CompletionCall& call) {
  std::optional<double> seconds = call.timeout_s;
  if (!seconds) {
    if (const auto header = request.header("x-timeout"); !header.empty()) {
      // The body's rule: a decimal number of seconds in [kMinTimeout, kMaxTimeout].
      double value = 0;
      const char* end = header.data() + header.size();
      const auto [stop, ec] = std::from_chars(header.data(), end, value);
      if (ec != std::errc() || stop != end || !std::isfinite(value) || value < kMinTimeout ||
          value > kMaxTimeout) {
        return Error::invalid(fmt::format("X-Timeout must be a number of seconds between {} and {}",
                                          kMinTimeout, kMaxTimeout),
                              "timeout");
      }
      seconds = value;
    }
  }
  if (!seconds) return std::optional<engine::Clock::time_point>();
  return std::optional<engine::Clock::time_point>(
      engine::Clock::now() +
      std::chrono::duration_cast<engine::Clock::duration>(std::chrono::duration<double>(*seconds)));
}

void record_refusal(Services& services, const Caller& caller, sched::Priority priority,
                    Outcome outcome) {
  if (services.metrics == nullptr) return;
  RequestRecord r;
  r.priority = sched::priority_name(priority);
  r.tenant = caller.tenant;
  r.outcome = outcome;
  services.metrics->record(r);
}

}  // namespace

http::Response create_completion(Services& services, http::Request& request, bool chat) {
  engine::Engine& engine = *services.engine;
  Caller caller;
  if (services.access != nullptr) {
    auto identified = services.access->identify(request);
    if (!identified) return error_response(identified.error());
    caller = *identified;
  }
  auto call = parse_completion_call(request.body, chat);
  if (!call) return error_response(call.error());
  auto priority = request_priority(request, *call, caller);
  if (!priority) return error_response(priority.error());
  if (services.shedding != nullptr && services.shedding->shed(*priority)) {
    record_refusal(services, caller, *priority, Outcome::kRejectedQueueFull);
    return shed_refusal(*priority);
  }
  auto deadline = request_deadline(request, *call);
  if (!deadline) return error_response(deadline.error());
  const auto& card = engine.model();
  if (!engine.knows_model(call->model)) {
    return error_response(Error{
        ErrorCode::kNotFound,
        "model '" + call->model + "' is not served here (GET /v1/models lists what is)", "model"});
  }
  // A conversation's id keeps it on one model version; else the body's "user".
  if (const auto session = request.header("x-session-id"); !session.empty())
    call->request.routing_key = std::string(session);
  if (services.access != nullptr) {
    if (Status admitted = services.access->admit(caller); !admitted) {
      record_refusal(services, caller, *priority, Outcome::kRateLimited);
      return error_response(admitted.error());
    }
  }

  CompletionFormat format{chat, next_id(chat ? "chatcmpl" : "cmpl"), card.id, unix_now(),
                          call->include_usage};
  call->request.id = format.id;
  call->request.priority = *priority;
  call->request.tenant = caller.tenant;
  call->request.deadline = *deadline;
  // A drill's faults on the queue, prefill and decode stages (api/fault_handlers.h).
  if (auto aborted = inject_before_submit(services, call->request)) return std::move(*aborted);
  auto reply = std::make_shared<http::ReplyStream>();
  auto sink =
      call->stream ? make_streaming_sink(reply, format) : make_collecting_sink(reply, format);
  sink = make_metering_sink(std::move(sink), services.metrics, services.access, caller, *priority);
  auto id = engine::submit_traced(engine, std::move(call->request), sink);
  if (!id) {
    if (auto refusal = refusal_outcome(id.error().code))
      record_refusal(services, caller, *priority, *refusal);
    return error_response(id.error());
  }
  reply->on_cancel([&engine, id = *id] { engine.cancel(id); });
  http::Response response = http::Response::deferred(reply);
  if (card.meaningless_text) {
    response.headers.emplace_back("X-Supportd-Notice",
                                  "synthesized model with random weights: text is meaningless");
  }
  return response;
}

http::Response health(Services&, http::Request&) {
  return http::Response::json(200, R"({"status":"ok"})");
}

http::Response ready(Services& services, http::Request&) {
  const bool ok = services.engine->ready();
  json::array warnings;
  for (const auto& w : services.warnings)
    warnings.emplace_back(w);
  // A model version kept out of traffic (its SHA-256 is not the configured one ...): still
  // serving, degraded, with the reason.
  json::array problems;
  if (services.router != nullptr) {
    for (const auto& problem : services.router->problems())
      problems.emplace_back(problem);
  }
  const char* status = !ok ? "warming_up" : problems.empty() ? "ready" : "degraded";
  json::object body{{"ready", ok},
                    {"status", status},
                    {"problems", std::move(problems)},
                    {"model", services.engine->model().id},
                    {"details", json::object{{"warnings", std::move(warnings)},
                                             {"desk", services.desk != nullptr}}}};
  return http::Response::json(ok ? 200 : 503, json::serialize(body));
}

}  // namespace supportd::api
