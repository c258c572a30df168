// The model roll-out routes (see model_admin_handlers.h).
#include "api/model_admin_handlers.h"

#include <chrono>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "api/errors.h"
#include "api/json_body.h"
#include "engine/router/router_engine.h"

namespace supportd::api {
namespace {

namespace json = boost::json;
namespace router = engine::router;

http::Response no_router() {
  return http::error_response(404,
                              "model roll-outs need named versions: start supportd serve with "
                              "--model NAME=PATH (or [[models]] tables)",
                              "invalid_request_error", "not_found");
}

json::object split_object(const router::Split& split) {
  json::object weights;
  for (const router::Share& share : split.shares)
    weights[share.version] = share.weight;
  return {{"weights", std::move(weights)}, {"sticky", split.sticky}};
}

// The version's percent of `deployment`'s traffic (0 when the split does not name it).
int share_of(const router::Split& split, const std::string& version) {
  for (const router::Share& share : split.shares) {
    if (share.version == version) return share.weight;
  }
  return 0;
}

// Who made a change: the body's "by" when given, and where the call came from.
std::string who(const json::object& body, const http::Request& request) {
  std::string by = "admin";
  if (const json::value* value = body.if_contains("by"); value != nullptr && value->is_string())
    by = std::string(value->as_string()).substr(0, 128);
  return request.remote.empty() ? by : by + " from " + request.remote;
}

// The body's "weights" as a split; errors name the field.
Result<router::Split> read_split(const json::object& body) {
  router::Split split;
  const json::value* weights = body.if_contains("weights");
  if (weights == nullptr || !weights->is_object()) {
    return Error::invalid(
        "'weights' is required: an object of version names and percentages adding up to 100",
        "weights");
  }
  for (const auto& [name, value] : weights->as_object()) {
    const std::string field = "weights." + std::string(name);
    if (!value.is_number())
      return Error::invalid(fmt::format("'{}' must be a number", field), field);
    const double weight = value.to_number<double>();
    if (!std::isfinite(weight) || weight != std::floor(weight))
      return Error::invalid(fmt::format("'{}' must be a whole percentage", field), field);
    if (weight < 0) return Error::invalid(fmt::format("'{}' must not be negative", field), field);
    if (weight > 100) return Error::invalid(fmt::format("'{}' must be at most 100", field), field);
    split.shares.push_back({std::string(name), static_cast<int>(weight)});
  }
  if (const json::value* sticky = body.if_contains("sticky"); sticky != nullptr) {
    if (!sticky->is_bool()) return Error::invalid("'sticky' must be true or false", "sticky");
    split.sticky = sticky->as_bool();
  }
  for (const auto& [key, value] : body) {
    if (key != "weights" && key != "sticky" && key != "by") {
      return Error::invalid(
          fmt::format("unknown field '{}' (weights, sticky, by)", std::string(key)),
          std::string(key));
    }
  }
  return split;
}

http::Response routes_answer(const router::RouterEngine& models) {
  json::object deployments;
  for (const auto& [name, split] : models.routes())
    deployments[name] = split_object(split);
  json::array history;
  for (const router::RouteChange& change : models.history()) {
    history.push_back(json::object{{"deployment", change.deployment},
                                   {"action", change.action},
                                   {"before", split_object(change.before)},
                                   {"after", split_object(change.after)},
                                   {"by", change.who},
                                   {"unix_ms", change.unix_ms}});
  }
  return http::Response::json(200,
                              json::serialize(json::object{{"deployments", std::move(deployments)},
                                                           {"history", std::move(history)}}));
}

}  // namespace

http::Response list_model_versions(Services& services, http::Request&) {
  if (services.router == nullptr) return no_router();
  const auto routes = services.router->routes();
  json::array versions;
  for (const router::VersionView& view : services.router->versions()) {
    json::object shares;
    for (const auto& [deployment, split] : routes) {
      if (const int share = share_of(split, view.name); share > 0) shares[deployment] = share;
    }
    versions.push_back(json::object{{"name", view.name},
                                    {"state", router::version_state_name(view.state)},
                                    {"reason", view.reason},
                                    {"path", view.facts.path},
                                    {"sha256", view.facts.sha256},
                                    {"expected_sha256", view.facts.expected_sha256},
                                    {"bytes", view.facts.bytes},
                                    {"architecture", view.facts.architecture},
                                    {"quantization", view.facts.quantization},
                                    {"chat_template_sha256", view.facts.chat_template_sha256},
                                    {"traffic_percent", std::move(shares)},
                                    {"in_flight", view.in_flight},
                                    {"requests", view.requests},
                                    {"errors", view.errors},
                                    {"ttft_p50_ms", view.ttft_p50_ms},
                                    {"ttft_p99_ms", view.ttft_p99_ms},
                                    {"e2e_p99_ms", view.e2e_p99_ms}});
  }
  return http::Response::json(200,
                              json::serialize(json::object{{"versions", std::move(versions)}}));
}

http::Response unload_model_version(Services& services, http::Request& request) {
  if (services.router == nullptr) return no_router();
  double timeout_s = kDefaultDrainSeconds;
  if (const auto given = request.query_param("timeout_s")) {
    char* end = nullptr;
    timeout_s = std::strtod(given->c_str(), &end);
    if (given->empty() || end != given->c_str() + given->size() || !std::isfinite(timeout_s) ||
        timeout_s < 0 || timeout_s > 3600) {
      return error_response(
          Error::invalid("'timeout_s' must be a number of seconds from 0 to 3600", "timeout_s"));
    }
  }
  const std::string name(request.param("name"));
  auto drained = services.router->unload(
      name, std::chrono::milliseconds(static_cast<std::int64_t>(timeout_s * 1000)));
  if (!drained) return error_response(drained.error());
  spdlog::warn("model version {} draining ({} requests in flight, up to {} s), then unloaded", name,
               *drained, timeout_s);
  return http::Response::json(
      202, json::serialize(
               json::object{{"name", name}, {"state", "draining"}, {"in_flight", *drained}}));
}

http::Response list_routes(Services& services, http::Request&) {
  if (services.router == nullptr) return no_router();
  return routes_answer(*services.router);
}

http::Response put_route(Services& services, http::Request& request) {
  if (services.router == nullptr) return no_router();
  auto body = parse_json_object(request.body, false);
  if (!body) return error_response(body.error());
  auto split = read_split(*body);
  if (!split) return error_response(split.error());
  const std::string deployment(request.param("deployment"));
  const std::string by = who(*body, request);
  if (Status set = services.router->set_route(deployment, *split, by); !set)
    return error_response(set.error());
  spdlog::warn("model route {} set to {} by {}", deployment, json::serialize(split_object(*split)),
               by);
  return routes_answer(*services.router);
}

http::Response rollback_route(Services& services, http::Request& request) {
  if (services.router == nullptr) return no_router();
  auto body = parse_json_object(request.body, true);
  if (!body) return error_response(body.error());
  const std::string deployment(request.param("deployment"));
  const std::string by = who(*body, request);
  if (Status rolled = services.router->rollback(deployment, by); !rolled)
    return error_response(rolled.error());
  spdlog::warn("model route {} rolled back by {}", deployment, by);
  return routes_answer(*services.router);
}

}  // namespace supportd::api
