// Shedding a priority class at run time, and its admin routes (see load_shedding.h).
#include "api/load_shedding.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/json.hpp>

#include "api/errors.h"
#include "api/json_body.h"

namespace supportd::api {
namespace {

namespace json = boost::json;

http::Response shed_list(const LoadShedding& shedding) {
  json::array names;
  for (const auto& name : shedding.shed_classes())
    names.emplace_back(name);
  return http::Response::json(200, json::serialize(json::object{{"shed", std::move(names)}}));
}

http::Response no_shedding() {
  return http::error_response(404, "load shedding is not available on this server",
                              "invalid_request_error", "not_found");
}

}  // namespace

void LoadShedding::set(sched::Priority priority, bool shed) {
  const bool was = shed_[static_cast<std::size_t>(priority)].exchange(shed);
  if (was != shed) {
    spdlog::warn(
        "class {} {}", sched::priority_name(priority),
        shed ? "shed: its requests are refused with 503 (POST /admin/shed)" : "served again");
  }
}

std::vector<std::string> LoadShedding::shed_classes() const {
  std::vector<std::string> names;
  for (int p = 0; p < sched::kPriorityCount; ++p) {
    if (shed(static_cast<sched::Priority>(p)))
      names.emplace_back(sched::priority_name(static_cast<sched::Priority>(p)));
  }
  return names;
}

http::Response shed_refusal(sched::Priority priority) {
  http::Response response =
      http::error_response(503,
                           std::string("requests of class ") + sched::priority_name(priority) +
                               " are shed for now to relieve the server; retry later",
                           "server_error", "class_shed");
  response.headers.emplace_back("Retry-After", "10");
  return response;
}

http::Response add_shed(Services& services, http::Request& request) {
  if (services.shedding == nullptr) return no_shedding();
  auto body = parse_json_object(request.body, false);
  if (!body) return error_response(body.error());
  const json::value* name = body->if_contains("class");
  if (name == nullptr || !name->is_string())
    return error_response(Error::invalid("'class' is required: high, normal or low", "class"));
  const auto priority = sched::parse_priority(name->as_string());
  if (!priority)
    return error_response(Error::invalid("'class' must be high, normal or low", "class"));
  for (const auto& field : *body) {
    if (field.key() != "class")
      return error_response(
          Error::invalid(fmt::format("unknown field '{}'", std::string_view(field.key())),
                         std::string(field.key())));
  }
  services.shedding->set(*priority, true);
  return shed_list(*services.shedding);
}

http::Response list_shed(Services& services, http::Request&) {
  if (services.shedding == nullptr) return no_shedding();
  return shed_list(*services.shedding);
}

http::Response clear_shed(Services& services, http::Request&) {
  if (services.shedding == nullptr) return no_shedding();
  for (int p = 0; p < sched::kPriorityCount; ++p)
    services.shedding->set(static_cast<sched::Priority>(p), false);
  return shed_list(*services.shedding);
}

}  // namespace supportd::api
