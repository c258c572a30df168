// The wire format's JSON: one writer and one checked reader per message (bus/wire.h).
#include "bus/wire.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "bus/wire_fields.h"

namespace supportd::bus {
namespace {

namespace json = boost::json;
using engine::Clock;

// Parses `data` as a JSON object of this wire version and kind.
Result<json::object> open(std::string_view data, std::string_view kind) {
  boost::system::error_code ec;
  json::value value = json::parse(data, ec);
  if (ec || !value.is_object()) {
    return Error::make(ErrorCode::kCorrupt,
                       fmt::format("a bus message that should be {} is not a JSON object", kind));
  }
  json::object& object = value.get_object();
  const json::value* version = object.if_contains("v");
  if (version == nullptr || !version->is_int64() || version->get_int64() != kWireVersion) {
    return Error::make(
        ErrorCode::kCorrupt,
        fmt::format("a bus message ({}) has wire version {}; this node speaks {}", kind,
                    version != nullptr ? json::serialize(*version) : "none", kWireVersion));
  }
  return std::move(object);
}

json::object start(std::string_view kind) {
  return json::object{{"v", kWireVersion}, {"kind", kind}};
}

// The steady-clock deadline as milliseconds since the Unix epoch, and back (node clocks must
// agree: NTP; docs/operations.md).
std::int64_t to_wall_ms(Clock::time_point deadline) {
  const auto wall = std::chrono::system_clock::now() + (deadline - Clock::now());
  return std::chrono::duration_cast<std::chrono::milliseconds>(wall.time_since_epoch()).count();
}
Clock::time_point from_wall_ms(std::int64_t wall_ms) {
  const auto wall = std::chrono::system_clock::time_point(std::chrono::milliseconds(wall_ms));
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(wall - std::chrono::system_clock::now());
}

json::object encode_request(const engine::GenerationRequest& r) {
  json::array messages;
  for (const auto& m : r.messages)
    messages.push_back(json::object{{"role", m.role}, {"content", m.content}});
  json::array stop;
  for (const auto& s : r.stop)
    stop.push_back(json::string(s));
  json::object sampling{{"temperature", r.sampling.temperature},
                        {"top_p", r.sampling.top_p},
                        {"top_k", r.sampling.top_k},
                        {"min_p", r.sampling.min_p},
                        {"repeat_penalty", r.sampling.repeat_penalty},
                        {"frequency_penalty", r.sampling.frequency_penalty},
                        {"presence_penalty", r.sampling.presence_penalty},
                        {"penalty_last_n", r.sampling.penalty_last_n}};
  if (r.sampling.seed) sampling["seed"] = *r.sampling.seed;
  json::object out{{"id", r.id},
                   {"chat", r.chat},
                   {"messages", std::move(messages)},
                   {"prompt", r.prompt},
                   {"sampling", std::move(sampling)},
                   {"max_tokens", r.max_tokens},
                   {"stop", std::move(stop)},
                   {"ignore_eos", r.ignore_eos},
                   {"background", r.background},
                   {"priority", sched::priority_name(r.priority)},
                   {"tenant", r.tenant}};
  if (r.deadline) out["deadline_unix_ms"] = to_wall_ms(*r.deadline);
  return out;
}

void decode_request(FieldReader& in, const json::object& object, engine::GenerationRequest& r) {
  FieldReader fields(object, "request");
  r.id = fields.text("id");
  r.chat = fields.boolean("chat");
  if (const json::array* messages = fields.array("messages")) {
    for (const json::value& m : *messages) {
      if (!m.is_object()) {
        in.fail("messages", "an array of objects");
        break;
      }
      FieldReader message(m.get_object(), "request message");
      r.messages.push_back({message.text("role"), message.text("content")});
      in.absorb(message);
    }
  }
  r.prompt = fields.text("prompt");
  if (const json::object* sampling = fields.object("sampling")) {
    FieldReader s(*sampling, "sampling");
    r.sampling.temperature = s.number<float>("temperature", r.sampling.temperature);
    r.sampling.top_p = s.number<float>("top_p", r.sampling.top_p);
    r.sampling.top_k = s.number<int>("top_k", r.sampling.top_k);
    r.sampling.min_p = s.number<float>("min_p", r.sampling.min_p);
    r.sampling.repeat_penalty = s.number<float>("repeat_penalty", r.sampling.repeat_penalty);
    r.sampling.frequency_penalty =
        s.number<float>("frequency_penalty", r.sampling.frequency_penalty);
    r.sampling.presence_penalty = s.number<float>("presence_penalty", r.sampling.presence_penalty);
    r.sampling.penalty_last_n = s.number<int>("penalty_last_n", r.sampling.penalty_last_n);
    if (auto seed = s.optional_integer("seed")) r.sampling.seed = static_cast<std::uint32_t>(*seed);
    in.absorb(s);
  }
  r.max_tokens = fields.number<int>("max_tokens", -1);
  if (const json::array* stop = fields.array("stop")) {
    for (const json::value& s : *stop) {
      if (!s.is_string()) {
        in.fail("stop", "an array of strings");
        break;
      }
      r.stop.emplace_back(s.get_string());
    }
  }
  r.ignore_eos = fields.boolean("ignore_eos");
  r.background = fields.boolean("background");
  const std::string priority = fields.text("priority");
  if (auto p = sched::parse_priority(priority)) {
    r.priority = *p;
  } else {
    in.fail_value("priority", priority);
  }
  r.tenant = fields.text("tenant");
  if (auto wall = fields.optional_integer("deadline_unix_ms")) {
    // Held within what the clocks' nanoseconds can take (1970 to the year 2255), or the
    // conversion would overflow: a deadline before 1970 has passed, one after 2255 is none.
    constexpr std::int64_t kLatestWallMs = 9'000'000'000'000;
    r.deadline = from_wall_ms(std::clamp<std::int64_t>(*wall, 0, kLatestWallMs));
  }
  in.absorb(fields);
}

json::object encode_completion(const engine::Completion& c) {
  return json::object{{"reason", engine::finish_reason_name(c.reason)},
                      {"usage", json::object{{"prompt_tokens", c.usage.prompt_tokens},
                                             {"completion_tokens", c.usage.completion_tokens},
                                             {"cached_tokens", c.usage.cached_tokens}}},
                      {"timings", json::object{{"queued_ms", c.timings.queued_ms},
                                               {"first_token_ms", c.timings.first_token_ms},
                                               {"total_ms", c.timings.total_ms}}},
                      {"error", json::object{{"code", error_code_name(c.error.code)},
                                             {"message", c.error.message},
                                             {"param", c.error.param},
                                             {"retry_after_s", c.error.retry_after_s}}}};
}

std::optional<engine::FinishReason> parse_reason(std::string_view name) {
  for (auto reason : {engine::FinishReason::kStop, engine::FinishReason::kLength,
                      engine::FinishReason::kCancelled, engine::FinishReason::kDeadline,
                      engine::FinishReason::kError}) {
    if (name == engine::finish_reason_name(reason)) return reason;
  }
  return std::nullopt;
}

std::optional<ErrorCode> parse_error_code(std::string_view name) {
  for (int i = 0; i <= static_cast<int>(ErrorCode::kInternal); ++i) {
    const auto code = static_cast<ErrorCode>(i);
    if (name == error_code_name(code)) return code;
  }
  return std::nullopt;
}

void decode_completion(FieldReader& in, const json::object& object, engine::Completion& c) {
  FieldReader fields(object, "completion");
  const std::string reason = fields.text("reason");
  if (auto r = parse_reason(reason)) {
    c.reason = *r;
  } else {
    in.fail_value("reason", reason);
  }
  if (const json::object* usage = fields.object("usage")) {
    FieldReader u(*usage, "usage");
    c.usage.prompt_tokens = u.number<int>("prompt_tokens");
    c.usage.completion_tokens = u.number<int>("completion_tokens");
    c.usage.cached_tokens = u.number<int>("cached_tokens");
    in.absorb(u);
  }
  if (const json::object* timings = fields.object("timings")) {
    FieldReader t(*timings, "timings");
    c.timings.queued_ms = t.number<double>("queued_ms");
    c.timings.first_token_ms = t.number<double>("first_token_ms", -1);
    c.timings.total_ms = t.number<double>("total_ms");
    in.absorb(t);
  }
  if (const json::object* error = fields.object("error")) {
    FieldReader e(*error, "error");
    const std::string code = e.text("code");
    if (auto parsed = parse_error_code(code)) {
      c.error.code = *parsed;
    } else {
      in.fail_value("error.code", code);
    }
    c.error.message = e.text("message");
    c.error.param = e.text("param");
    c.error.retry_after_s = e.number<int>("retry_after_s");
    in.absorb(e);
  }
  in.absorb(fields);
}

const char* kind_name(StreamEvent::Kind kind) {
  switch (kind) {
    case StreamEvent::Kind::kStarted: return "started";
    case StreamEvent::Kind::kText: return "text";
    case StreamEvent::Kind::kAlive: return "alive";
    case StreamEvent::Kind::kDone: return "done";
  }
  return "text";
}

const char* state_name(ProgressReply::State state) {
  switch (state) {
    case ProgressReply::State::kStreaming: return "streaming";
    case ProgressReply::State::kFinished: return "finished";
    case ProgressReply::State::kUnknown: return "unknown";
  }
  return "unknown";
}

}  // namespace

std::string encode(const WorkOrder& order) {
  json::object out = start("work_order");
  out["id"] = order.request_id;
  out["gateway"] = order.gateway_id;
  out["request"] = encode_request(order.request);
  return json::serialize(out);
}

Result<WorkOrder> decode_work_order(std::string_view data) {
  auto object = open(data, "a work order");
  if (!object) return object.error();
  FieldReader in(*object, "work order");
  WorkOrder order;
  order.request_id = in.text("id");
  order.gateway_id = in.text("gateway");
  if (order.request_id.empty()) in.fail("id", "a non-empty string");
  if (order.gateway_id.empty()) in.fail("gateway", "a non-empty string");
  if (const json::object* request = in.object("request")) {
    decode_request(in, *request, order.request);
  } else {
    in.fail("request", "an object");
  }
  if (Status s = in.status(); !s) return s.error();
  return order;
}

std::string encode(const StreamEvent& event) {
  json::object out = start(kind_name(event.kind));
  out["id"] = event.request_id;
  out["attempt"] = event.attempt;
  switch (event.kind) {
    case StreamEvent::Kind::kStarted: out["engine"] = event.engine_id; break;
    case StreamEvent::Kind::kText:
      out["seq"] = event.sequence;
      out["text"] = event.text;
      break;
    case StreamEvent::Kind::kAlive: break;
    case StreamEvent::Kind::kDone:
      out["seq"] = event.sequence;
      out["completion"] = encode_completion(event.completion);
      break;
  }
  return json::serialize(out);
}

Result<StreamEvent> decode_stream_event(std::string_view data) {
  auto object = open(data, "a stream event");
  if (!object) return object.error();
  FieldReader in(*object, "stream event");
  StreamEvent event;
  const std::string kind = in.text("kind");
  bool known = false;
  for (auto k : {StreamEvent::Kind::kStarted, StreamEvent::Kind::kText, StreamEvent::Kind::kAlive,
                 StreamEvent::Kind::kDone}) {
    if (kind == kind_name(k)) {
      event.kind = k;
      known = true;
    }
  }
  if (!known) in.fail_value("kind", kind);
  event.request_id = in.text("id");
  event.attempt = in.number<std::uint64_t>("attempt", 1);
  event.sequence = in.number<std::uint64_t>("seq");
  event.text = in.text("text");
  event.engine_id = in.text("engine");
  if (event.kind == StreamEvent::Kind::kDone) {
    if (const json::object* completion = in.object("completion")) {
      decode_completion(in, *completion, event.completion);
    } else {
      in.fail("completion", "an object");
    }
  }
  if ((event.kind == StreamEvent::Kind::kText || event.kind == StreamEvent::Kind::kDone) &&
      event.sequence == 0)
    in.fail("seq", "a positive integer");
  if (Status s = in.status(); !s) return s.error();
  return event;
}

std::string encode(const ProgressQuery& query) {
  json::object out = start("progress_query");
  out["id"] = query.request_id;
  out["attempt"] = query.attempt;
  out["engine"] = query.engine_id;
  return json::serialize(out);
}

Result<ProgressQuery> decode_progress_query(std::string_view data) {
  auto object = open(data, "a progress query");
  if (!object) return object.error();
  FieldReader in(*object, "progress query");
  ProgressQuery query{in.text("id"), in.number<std::uint64_t>("attempt"), in.text("engine")};
  if (Status s = in.status(); !s) return s.error();
  return query;
}

std::string encode(const ProgressReply& reply) {
  json::object out = start("progress_reply");
  out["state"] = state_name(reply.state);
  out["delivered"] = reply.delivered;
  out["text"] = reply.text;
  return json::serialize(out);
}

Result<ProgressReply> decode_progress_reply(std::string_view data) {
  auto object = open(data, "a progress reply");
  if (!object) return object.error();
  FieldReader in(*object, "progress reply");
  ProgressReply reply;
  const std::string state = in.text("state");
  bool known = false;
  for (auto s : {ProgressReply::State::kStreaming, ProgressReply::State::kFinished,
                 ProgressReply::State::kUnknown}) {
    if (state == state_name(s)) {
      reply.state = s;
      known = true;
    }
  }
  if (!known) in.fail_value("state", state);
  reply.delivered = in.number<std::uint64_t>("delivered");
  reply.text = in.text("text");
  if (Status s = in.status(); !s) return s.error();
  return reply;
}

std::string encode(const CancelOrder& order) {
  json::object out = start("cancel");
  out["id"] = order.request_id;
  out["below_attempt"] = order.below_attempt;
  out["give_back"] = order.give_back;
  return json::serialize(out);
}

Result<CancelOrder> decode_cancel_order(std::string_view data) {
  auto object = open(data, "a cancel order");
  if (!object) return object.error();
  FieldReader in(*object, "cancel order");
  CancelOrder order{in.text("id"), in.number<std::uint64_t>("below_attempt"),
                    in.boolean("give_back")};
  if (Status s = in.status(); !s) return s.error();
  return order;
}

std::string encode(const EngineLoad& load) {
  json::object out = start("engine_load");
  out["engine"] = load.engine_id;
  out["model"] = json::object{{"id", load.model.id},
                              {"description", load.model.description},
                              {"context_length", load.model.context_length},
                              {"meaningless_text", load.model.meaningless_text},
                              {"owned_by", load.model.owned_by}};
  out["ready"] = load.ready;
  out["slots"] = load.slots;
  out["held"] = load.held;
  out["completion_rate"] = load.completion_rate;
  out["service_seconds"] = load.service_seconds;
  out["heartbeat_ms"] = load.heartbeat_ms;
  return json::serialize(out);
}

Result<EngineLoad> decode_engine_load(std::string_view data) {
  auto object = open(data, "an engine load");
  if (!object) return object.error();
  FieldReader in(*object, "engine load");
  EngineLoad load;
  load.engine_id = in.text("engine");
  if (const json::object* model = in.object("model")) {
    FieldReader m(*model, "model");
    load.model.id = m.text("id");
    load.model.description = m.text("description");
    load.model.context_length = m.number<int>("context_length");
    load.model.meaningless_text = m.boolean("meaningless_text");
    load.model.owned_by = m.text("owned_by");
    in.absorb(m);
  }
  load.ready = in.boolean("ready");
  load.slots = in.number<int>("slots");
  load.held = in.number<int>("held");
  load.completion_rate = in.number<double>("completion_rate");
  load.service_seconds = in.number<double>("service_seconds");
  load.heartbeat_ms = in.number<int>("heartbeat_ms", 500);
  if (load.engine_id.empty()) in.fail("engine", "a non-empty string");
  if (Status s = in.status(); !s) return s.error();
  return load;
}

}  // namespace supportd::bus
