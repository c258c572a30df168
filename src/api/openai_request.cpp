// OpenAI request bodies to engine requests (see openai_request.h); every refusal names its field.
#include "api/openai_request.h"

#include <cmath>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "api/json_body.h"
#include "core/utf8.h"

namespace supportd::api {
namespace json = boost::json;
namespace {

// Thrown inside this file only; becomes an Error at the top.
struct BadField {
  std::string message;
  std::string param;
};

[[noreturn]] void bad(std::string param, std::string message) {
  throw BadField{std::move(message), std::move(param)};
}

const json::value* find(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v == nullptr || v->is_null() ? nullptr : v;
}

std::optional<double> number(const json::object& o, std::string_view key, double min, double max) {
  const json::value* v = find(o, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) bad(std::string(key), std::string(key) + " must be a number");
  const double x = v->to_number<double>();
  if (!std::isfinite(x) || x < min || x > max) {
    bad(std::string(key), fmt::format("{} must be between {} and {}", key, min, max));
  }
  return x;
}

std::optional<std::int64_t> integer(const json::object& o, std::string_view key, std::int64_t min,
                                    std::int64_t max) {
  const json::value* v = find(o, key);
  if (v == nullptr) return std::nullopt;
  std::int64_t x = 0;
  if (v->is_int64()) {
    x = v->as_int64();
  } else if (v->is_uint64()) {
    if (v->as_uint64() > static_cast<std::uint64_t>(max)) {
      bad(std::string(key), fmt::format("{} must be between {} and {}", key, min, max));
    }
    x = static_cast<std::int64_t>(v->as_uint64());
  } else if (v->is_double() && std::floor(v->as_double()) == v->as_double() &&
             std::abs(v->as_double()) < 9e15) {
    x = static_cast<std::int64_t>(v->as_double());
  } else {
    bad(std::string(key), std::string(key) + " must be an integer");
  }
  if (x < min || x > max)
    bad(std::string(key), fmt::format("{} must be between {} and {}", key, min, max));
  return x;
}

std::optional<bool> boolean(const json::object& o, std::string_view key) {
  const json::value* v = find(o, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_bool()) bad(std::string(key), std::string(key) + " must be true or false");
  return v->as_bool();
}

std::optional<std::string> string(const json::object& o, std::string_view key) {
  const json::value* v = find(o, key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) bad(std::string(key), std::string(key) + " must be a string");
  return std::string(v->as_string());
}

// Message content: a string, or an array of {"type":"text","text":...} parts.
std::string content_text(const json::value& content, const std::string& param) {
  if (content.is_string()) return std::string(content.as_string());
  if (content.is_null()) return {};
  if (!content.is_array()) bad(param, param + " must be a string or an array of text parts");
  std::string text;
  for (const auto& part : content.as_array()) {
    const auto* o = part.if_object();
    const auto* type = o ? o->if_contains("type") : nullptr;
    if (o == nullptr || type == nullptr || !type->is_string()) {
      bad(param, param + " parts must be objects with a \"type\"");
    }
    if (type->as_string() != "text") {
      bad(param,
          "only text content is supported (got a \"" + std::string(type->as_string()) + "\" part)");
    }
    const auto* t = o->if_contains("text");
    if (t == nullptr || !t->is_string()) bad(param, param + " text parts need a string \"text\"");
    text += t->as_string();
  }
  return text;
}

std::vector<engine::ChatMessage> messages(const json::object& body) {
  const json::value* v = find(body, "messages");
  if (v == nullptr) bad("messages", "messages is required");
  if (!v->is_array()) bad("messages", "messages must be an array");
  const auto& array = v->as_array();
  if (array.empty()) bad("messages", "messages must not be empty");
  std::vector<engine::ChatMessage> out;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string param = fmt::format("messages[{}]", i);
    const auto* m = array[i].if_object();
    if (m == nullptr) bad(param, param + " must be an object");
    const auto* role = m->if_contains("role");
    if (role == nullptr || !role->is_string())
      bad(param + ".role", param + ".role must be a string");
    const std::string r(role->as_string());
    if (r != "system" && r != "user" && r != "assistant" && r != "developer" && r != "tool") {
      bad(param + ".role",
          "unknown role '" + r + "' (use system, developer, user, assistant or tool)");
    }
    const auto* content = m->if_contains("content");
    if (content != nullptr && content->is_null()) content = nullptr;
    if (content == nullptr && r != "assistant")
      bad(param + ".content", param + ".content is required");
    out.push_back({r == "developer" ? "system" : r,
                   content ? content_text(*content, param + ".content") : std::string()});
  }
  return out;
}

std::vector<std::string> stops(const json::object& body) {
  const json::value* v = find(body, "stop");
  if (v == nullptr) return {};
  if (v->is_string()) return {std::string(v->as_string())};
  if (!v->is_array()) bad("stop", "stop must be a string or an array of strings");
  std::vector<std::string> out;
  for (const auto& s : v->as_array()) {
    if (!s.is_string()) bad("stop", "stop must be a string or an array of strings");
    out.emplace_back(s.as_string());
  }
  if (out.size() > 16) bad("stop", "at most 16 stop strings");
  return out;
}

void reject_unsupported(const json::object& body) {
  if (auto n = integer(body, "n", 1, 128); n && *n != 1) bad("n", "only n = 1 is supported");
  if (auto lp = find(body, "logprobs"); lp && !(lp->is_bool() && !lp->as_bool())) {
    bad("logprobs", "logprobs are not supported");
  }
  if (auto tools = find(body, "tools");
      tools && !(tools->is_array() && tools->as_array().empty())) {
    bad("tools", "tools are not supported");
  }
  if (boolean(body, "echo").value_or(false)) bad("echo", "echo is not supported");
  if (auto b = integer(body, "best_of", 1, 128); b && *b != 1)
    bad("best_of", "only best_of = 1 is supported");
}

}  // namespace

Result<CompletionCall> parse_completion_call(std::string_view text, bool chat) {
  auto parsed = parse_json_object(text, false);
  if (!parsed) return parsed.error();
  const json::object& body = *parsed;

  CompletionCall call;
  engine::GenerationRequest& r = call.request;
  try {
    reject_unsupported(body);
    call.model = string(body, "model").value_or("");
    r.model = call.model;
    // OpenAI's end-user id: what keeps one customer on one model version (engine/router).
    r.routing_key = string(body, "user").value_or("");
    call.stream = boolean(body, "stream").value_or(false);
    if (const json::value* so = find(body, "stream_options")) {
      if (!so->is_object()) bad("stream_options", "stream_options must be an object");
      call.include_usage = boolean(so->as_object(), "include_usage").value_or(false);
    }
    r.chat = chat;
    if (chat) {
      r.messages = messages(body);
    } else {
      const json::value* p = find(body, "prompt");
      if (p == nullptr) bad("prompt", "prompt is required");
      if (p->is_string()) {
        r.prompt = std::string(p->as_string());
      } else if (p->is_array() && p->as_array().size() == 1 && p->as_array()[0].is_string()) {
        r.prompt = std::string(p->as_array()[0].as_string());
      } else {
        bad("prompt", "prompt must be a string (or an array holding one string)");
      }
    }
    const auto max_tokens = integer(body, "max_completion_tokens", 1, 1 << 20);
    r.max_tokens = static_cast<int>(
        max_tokens ? *max_tokens : integer(body, "max_tokens", 1, 1 << 20).value_or(-1));
    auto& s = r.sampling;
    s.temperature = static_cast<float>(number(body, "temperature", 0, 2).value_or(s.temperature));
    s.top_p = static_cast<float>(number(body, "top_p", 0, 1).value_or(s.top_p));
    if (s.top_p <= 0) bad("top_p", "top_p must be greater than 0");
    s.top_k = static_cast<int>(integer(body, "top_k", 0, 1 << 20).value_or(s.top_k));
    s.min_p = static_cast<float>(number(body, "min_p", 0, 1).value_or(s.min_p));
    s.frequency_penalty = static_cast<float>(number(body, "frequency_penalty", -2, 2).value_or(0));
    s.presence_penalty = static_cast<float>(number(body, "presence_penalty", -2, 2).value_or(0));
    s.repeat_penalty = static_cast<float>(number(body, "repeat_penalty", 0.01, 10).value_or(1));
    s.penalty_last_n = static_cast<int>(integer(body, "repeat_last_n", 0, 1 << 16).value_or(64));
    if (auto seed = integer(body, "seed", std::numeric_limits<std::int64_t>::min(),
                            std::numeric_limits<std::int64_t>::max())) {
      s.seed = static_cast<std::uint32_t>(*seed);
    }
    r.stop = stops(body);
    if (auto priority = string(body, "priority")) {
      call.priority = sched::parse_priority(*priority);
      if (!call.priority) bad("priority", "priority must be \"high\", \"normal\" or \"low\"");
    }
    call.timeout_s = number(body, "timeout", kMinTimeout, kMaxTimeout);
    r.ignore_eos = boolean(body, "ignore_eos").value_or(false);
  } catch (const BadField& e) {
    return Error::invalid(e.message, e.param);
  }
  return call;
}

}  // namespace supportd::api
