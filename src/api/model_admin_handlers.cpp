// The model roll-out routes (see model_admin_handlers.h).
#include "api/model_admin_handlers.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "api/errors.h"
#include "api/json_body.h"
#include "api/model_version_json.h"
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

// Who made a change: the body's "by" when given, and where the call came from.
std::string who(const json::object& body, const http::Request& request) {
  std::string by = "admin";
  if (const json::value* value = body.if_contains("by"); value != nullptr && value->is_string())
    by = std::string(value->as_string()).substr(0, 128);
  return request.remote.empty() ? by : by + " from " + request.remote;
}

// A whole percentage from 0 to 100 in `value`; errors name `field`.
Result<int> read_percent(const json::value& value, const std::string& field) {
  if (!value.is_number()) return Error::invalid(fmt::format("'{}' must be a number", field), field);
  const double percent = value.to_number<double>();
  if (!std::isfinite(percent) || percent != std::floor(percent))
    return Error::invalid(fmt::format("'{}' must be a whole percentage", field), field);
  if (percent < 0) return Error::invalid(fmt::format("'{}' must not be negative", field), field);
  if (percent > 100) return Error::invalid(fmt::format("'{}' must be at most 100", field), field);
  return static_cast<int>(percent);
}

// The body's "shadow" ({"version": NAME, "percent": 0..100}; null or absent: none).
Result<std::optional<router::Shadow>> read_shadow(const json::object& body) {
  const json::value* given = body.if_contains("shadow");
  if (given == nullptr || given->is_null()) return std::optional<router::Shadow>();
  if (!given->is_object()) {
    return Error::invalid("'shadow' must be an object: {\"version\": NAME, \"percent\": 0..100}",
                          "shadow");
  }
  router::Shadow shadow;
  for (const auto& [key, value] : given->as_object()) {
    const std::string field = "shadow." + std::string(key);
    if (key == "version") {
      if (!value.is_string() || value.as_string().empty())
        return Error::invalid("'shadow.version' must name a model version", field);
      shadow.version = std::string(value.as_string());
    } else if (key == "percent") {
      auto percent = read_percent(value, field);
      if (!percent) return percent.error();
      shadow.percent = *percent;
    } else {
      return Error::invalid(fmt::format("unknown field '{}' (version, percent)", field), field);
    }
  }
  if (shadow.version.empty())
    return Error::invalid("'shadow.version' is required: the version to copy requests to",
                          "shadow.version");
  if (!given->as_object().contains("percent"))
    return Error::invalid("'shadow.percent' is required: the percent of requests to copy",
                          "shadow.percent");
  return std::optional<router::Shadow>(std::move(shadow));
}

// The body's "weights" (and "sticky", "shadow") as a split; errors name the field.
Result<router::Split> read_split(const json::object& body) {
  router::Split split;
  const json::value* weights = body.if_contains("weights");
  if (weights == nullptr || !weights->is_object()) {
    return Error::invalid(
        "'weights' is required: an object of version names and percentages adding up to 100",
        "weights");
  }
  for (const auto& [name, value] : weights->as_object()) {
    auto weight = read_percent(value, "weights." + std::string(name));
    if (!weight) return weight.error();
    split.shares.push_back({std::string(name), *weight});
  }
  if (const json::value* sticky = body.if_contains("sticky"); sticky != nullptr) {
    if (!sticky->is_bool()) return Error::invalid("'sticky' must be true or false", "sticky");
    split.sticky = sticky->as_bool();
  }
  auto shadow = read_shadow(body);
  if (!shadow) return shadow.error();
  split.shadow = std::move(shadow).value();
  for (const auto& [key, value] : body) {
    if (key != "weights" && key != "sticky" && key != "shadow" && key != "by") {
      return Error::invalid(
          fmt::format("unknown field '{}' (weights, sticky, shadow, by)", std::string(key)),
          std::string(key));
    }
  }
  return split;
}

http::Response routes_answer(const router::RouterEngine& models) {
  json::object deployments;
  for (const auto& [name, split] : models.routes())
    deployments[name] = split_json(split);
  json::array history;
  for (const router::RouteChange& change : models.history()) {
    history.push_back(json::object{{"deployment", change.deployment},
                                   {"action", change.action},
                                   {"before", split_json(change.before)},
                                   {"after", split_json(change.after)},
                                   {"by", change.who},
                                   {"unix_ms", change.unix_ms}});
  }
  const router::ShadowQueue& shadows = models.shadows();
  const router::ShadowLimits limits = shadows.limits();
  json::object queue{{"capacity", limits.capacity},
                     {"concurrency", limits.concurrency},
                     {"max_age_ms", limits.max_age.count()},
                     {"waiting", shadows.waiting()},
                     {"running", shadows.running()}};
  return http::Response::json(200,
                              json::serialize(json::object{{"deployments", std::move(deployments)},
                                                           {"history", std::move(history)},
                                                           {"shadow_queue", std::move(queue)}}));
}

}  // namespace

http::Response list_model_versions(Services& services, http::Request&) {
  if (services.router == nullptr) return no_router();
  const auto routes = services.router->routes();
  json::array versions;
  for (const router::VersionView& view : services.router->versions())
    versions.push_back(version_json(view, routes));
  return http::Response::json(200,
                              json::serialize(json::object{{"versions", std::move(versions)}}));
}

namespace {

// POST /admin/models's body: {"name", "path" or "upstream" (and "upstream_model"), "sha256",
// "parallel", "ctx_size", "by"}; which go together is the loader's to check.
Result<router::VersionSpec> read_version_spec(const json::object& body) {
  router::VersionSpec spec;
  for (const auto& [key, value] : body) {
    const std::string field(key);
    if (field == "name" || field == "path" || field == "upstream" || field == "upstream_model" ||
        field == "sha256" || field == "by") {
      if (!value.is_string())
        return Error::invalid(fmt::format("'{}' must be a string", field), field);
      const std::string text(value.as_string());
      if (field == "name") spec.name = text;
      if (field == "path") spec.path = text;
      if (field == "upstream") spec.upstream = text;
      if (field == "upstream_model") spec.upstream_model = text;
      if (field == "sha256") spec.expected_sha256 = text;
    } else if (field == "parallel" || field == "ctx_size") {
      if (!value.is_int64() && !value.is_uint64())
        return Error::invalid(fmt::format("'{}' must be a whole number", field), field);
      // A uint64 is past int64's range (Boost.JSON parses what fits as int64), so out of range
      // here; to_number<int64_t> would have thrown on it.
      if (!value.is_int64() || value.get_int64() < 1 || value.get_int64() > 1'000'000)
        return Error::invalid(fmt::format("'{}' is out of range", field), field);
      (field == "parallel" ? spec.parallel : spec.context_cells) =
          static_cast<int>(value.get_int64());
    } else {
      return Error::invalid(fmt::format("unknown field '{}' (name, path, upstream, "
                                        "upstream_model, sha256, parallel, ctx_size, by)",
                                        field),
                            field);
    }
  }
  if (spec.name.empty()) return Error::invalid("'name' is required", "name");
  return spec;
}

}  // namespace

http::Response load_model_version(Services& services, http::Request& request) {
  if (services.router == nullptr) return no_router();
  if (!services.load_model) {
    return http::error_response(404, "loading model versions at run time is not available here",
                                "invalid_request_error", "not_found");
  }
  auto body = parse_json_object(request.body, false);
  if (!body) return error_response(body.error());
  auto spec = read_version_spec(*body);
  if (!spec) return error_response(spec.error());
  if (Status started = services.load_model(*spec); !started) return error_response(started.error());
  spdlog::warn("model version {} loading from {} (asked by {})", spec->name,
               spec->upstream.empty() ? spec->path : spec->upstream, who(*body, request));
  return http::Response::json(
      202, json::serialize(json::object{{"name", spec->name}, {"state", "loading"}}));
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
  spdlog::warn("model route {} set to {} by {}", deployment, json::serialize(split_json(*split)),
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
