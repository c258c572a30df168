// The fault-injection routes and the API's own fault points (see fault_handlers.h).
#include "api/fault_handlers.h"

#include <chrono>
#include <cmath>
#include <ctime>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <boost/json.hpp>

#include "api/access.h"
#include "api/errors.h"
#include "api/json_body.h"
#include "obs/faults/fault_injector.h"
#include "sched/priority.h"

namespace supportd::api {
namespace {

namespace json = boost::json;
namespace faults = obs::faults;

constexpr std::string_view kFields[] = {
    "stage",   "kind",  "delay_ms", "status",   "tokens_per_second",
    "percent", "class", "tenant",   "expires_s"};

http::Response off() {
  return http::error_response(404,
                              "fault injection is off: start supportd serve with --faults (and "
                              "--admin-key-file)",
                              "invalid_request_error", "not_found");
}

// "'KEY' WHAT", naming the field as the error's param.
Error field_error(std::string_view key, std::string_view what) {
  return Error::invalid(fmt::format("'{}' {}", key, what), std::string(key));
}

// The number under `key`, when present; an error naming it when it is not a number.
Result<std::optional<double>> number(const json::object& body, std::string_view key) {
  const json::value* value = body.if_contains(key);
  if (value == nullptr || value->is_null()) return std::optional<double>();
  if (!value->is_number()) return field_error(key, "must be a number");
  const double x = value->to_number<double>();
  if (!std::isfinite(x)) return field_error(key, "must be finite");
  return std::optional<double>(x);
}

Result<std::string> text(const json::object& body, std::string_view key) {
  const json::value* value = body.if_contains(key);
  if (value == nullptr || value->is_null()) return std::string();
  if (!value->is_string()) return field_error(key, "must be a string");
  return std::string(value->as_string());
}

// A whole number of `key`, at least 0 (the ranges are checked by the injector).
Result<std::optional<std::int64_t>> whole(const json::object& body, std::string_view key) {
  auto x = number(body, key);
  if (!x) return x.error();
  if (!*x) return std::optional<std::int64_t>();
  if (**x != std::floor(**x) || std::fabs(**x) > 1e12)
    return field_error(key, "must be a whole number");
  return std::optional<std::int64_t>(static_cast<std::int64_t>(**x));
}

Result<faults::FaultSpec> parse_spec(const json::object& body) {
  for (const auto& field : body) {
    bool known = false;
    for (std::string_view name : kFields)
      known = known || std::string_view(field.key()) == name;
    if (!known) {
      return Error::invalid(fmt::format("unknown field '{}'", std::string_view(field.key())),
                            std::string(field.key()));
    }
  }
  faults::FaultSpec spec;
  auto stage = text(body, "stage");
  if (!stage) return stage.error();
  if (stage->empty())
    return Error::invalid("'stage' is required: " + faults::stage_names(), "stage");
  auto parsed_stage = faults::parse_stage(*stage);
  if (!parsed_stage)
    return Error::invalid("'stage' must be one of " + faults::stage_names(), "stage");
  spec.stage = *parsed_stage;
  auto kind = text(body, "kind");
  if (!kind) return kind.error();
  auto parsed_kind = faults::parse_kind(*kind);
  if (!parsed_kind) return Error::invalid("'kind' must be delay, abort or throttle", "kind");
  spec.kind = *parsed_kind;
  auto delay = whole(body, "delay_ms");
  auto status = whole(body, "status");
  auto rate = number(body, "tokens_per_second");
  auto percent = number(body, "percent");
  auto expires = whole(body, "expires_s");
  auto priority = text(body, "class");
  auto tenant = text(body, "tenant");
  if (!delay) return delay.error();
  if (!status) return status.error();
  if (!rate) return rate.error();
  if (!percent) return percent.error();
  if (!expires) return expires.error();
  if (!priority) return priority.error();
  if (!tenant) return tenant.error();
  if (spec.kind == faults::Kind::kDelay && !*delay)
    return Error::invalid("'delay_ms' is required for a delay", "delay_ms");
  if (spec.kind == faults::Kind::kAbort && !*status)
    return Error::invalid("'status' is required for an abort", "status");
  if (spec.kind == faults::Kind::kThrottle && !*rate)
    return Error::invalid("'tokens_per_second' is required for a throttle", "tokens_per_second");
  if (*delay) spec.delay = std::chrono::milliseconds(**delay);
  if (*status && !std::in_range<int>(**status))  // narrowed, it would wrap into range
    return Error::invalid("'status' must be an HTTP error status, 400 to 599", "status");
  if (*status) spec.status = static_cast<int>(**status);
  if (*rate) spec.tokens_per_second = **rate;
  if (*percent) spec.percent = **percent;
  if (*expires) spec.expires_after = std::chrono::seconds(**expires);
  spec.priority = *priority;
  spec.tenant = *tenant;
  return spec;
}

std::string iso_time(faults::WallClock::time_point when) {
  const std::time_t seconds = faults::WallClock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

json::object fault_json(const faults::FaultView& fault) {
  const faults::FaultSpec& spec = fault.spec;
  json::object o{
      {"id", fault.id},
      {"stage", faults::stage_name(spec.stage)},
      {"kind", faults::kind_name(spec.kind)},
      {"percent", spec.percent},
      {"class", spec.priority.empty() ? json::value(nullptr) : json::value(spec.priority)},
      {"tenant", spec.tenant.empty() ? json::value(nullptr) : json::value(spec.tenant)},
      {"created", iso_time(fault.created)},
      {"expires", iso_time(fault.expires)},
      {"injected", fault.injected}};
  if (spec.kind == faults::Kind::kDelay) o["delay_ms"] = spec.delay.count();
  if (spec.kind == faults::Kind::kAbort) o["status"] = spec.status;
  if (spec.kind == faults::Kind::kThrottle) o["tokens_per_second"] = spec.tokens_per_second;
  return o;
}

http::Response aborted(const faults::Injection& injection) {
  faults::mark(injection);
  return http::error_response(injection.status,
                              "fault " + std::to_string(injection.fault) + " injected at the " +
                                  faults::stage_name(injection.stage) +
                                  " stage (POST /admin/faults)",
                              error_type(injection.status), "fault_injected");
}

}  // namespace

http::Response add_fault(Services& services, http::Request& request) {
  if (services.faults == nullptr) return off();
  auto body = parse_json_object(request.body, false);
  if (!body) return error_response(body.error());
  auto spec = parse_spec(*body);
  if (!spec) return error_response(spec.error());
  auto added = services.faults->add(*spec);
  if (!added) {
    if (added.error().code == ErrorCode::kOverloaded) {
      return http::error_response(409, added.error().message, "invalid_request_error",
                                  "too_many_faults");
    }
    return error_response(added.error());
  }
  return http::Response::json(201, json::serialize(fault_json(*added)));
}

http::Response list_faults(Services& services, http::Request&) {
  if (services.faults == nullptr) return off();
  json::array list;
  for (const auto& fault : services.faults->list())
    list.push_back(fault_json(fault));
  json::object body{{"faults", std::move(list)},
                    {"max_faults", services.faults->limits().max_faults},
                    {"stages", faults::stage_names()}};
  return http::Response::json(200, json::serialize(body));
}

http::Response clear_faults(Services& services, http::Request&) {
  if (services.faults == nullptr) return off();
  const std::size_t removed = services.faults->clear();
  return http::Response::json(200, json::serialize(json::object{{"removed", removed}}));
}

http::Response remove_fault(Services& services, http::Request& request) {
  if (services.faults == nullptr) return off();
  const std::string id_text(request.param("id"));
  std::uint64_t id = 0;
  const bool digits = !id_text.empty() && id_text.size() < 19 &&
                      id_text.find_first_not_of("0123456789") == std::string::npos;
  if (digits) id = std::stoull(id_text);
  if (!digits || !services.faults->remove(id)) {
    return http::error_response(404,
                                "no armed fault " + id_text + " (GET /admin/faults lists them)",
                                "invalid_request_error", "not_found");
  }
  return http::Response::json(200, R"({"removed":1})");
}

http::Router::Handler with_http_faults(Services& services, http::Router::Handler handler) {
  return [&services, handler = std::move(handler)](http::Request& request) {
    if (services.faults != nullptr) {
      // The class is not known before the handler reads the request: class-bound faults act
      // from the queue stage on.
      std::string tenant = "anonymous";
      if (services.access != nullptr) {
        if (auto caller = services.access->identify(request)) tenant = caller->tenant;
      }
      if (auto injection = services.faults->decide(faults::Stage::kHttp, "", tenant)) {
        if (injection->kind == faults::Kind::kAbort) return aborted(*injection);
        faults::pause(*injection);
      }
    }
    return handler(request);
  };
}

std::optional<http::Response> inject_before_submit(Services& services,
                                                   engine::GenerationRequest& request) {
  if (services.faults == nullptr) return std::nullopt;
  const std::string_view priority = sched::priority_name(request.priority);
  const std::string_view tenant = request.tenant;
  auto& injector = *services.faults;
  if (auto queue = injector.decide(faults::Stage::kQueue, priority, tenant)) {
    if (queue->kind == faults::Kind::kAbort) return aborted(*queue);
    faults::pause(*queue);
  }
  if (auto prefill = injector.decide(faults::Stage::kPrefill, priority, tenant)) {
    if (prefill->kind == faults::Kind::kAbort) return aborted(*prefill);
    request.injected.prefill_delay = prefill->delay;
    faults::mark(*prefill);
  }
  if (auto decode = injector.decide(faults::Stage::kDecode, priority, tenant)) {
    if (decode->kind == faults::Kind::kAbort) return aborted(*decode);
    if (decode->kind == faults::Kind::kDelay) request.injected.decode_delay = decode->delay;
    if (decode->kind == faults::Kind::kThrottle)
      request.injected.decode_tokens_per_second = decode->tokens_per_second;
    faults::mark(*decode);
  }
  return std::nullopt;
}

}  // namespace supportd::api
