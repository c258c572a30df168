// /v1/stats and /metrics (see stats_handlers.h).
#include "api/stats_handlers.h"

#include <boost/json.hpp>

#include "api/access.h"
#include "api/desk_stats.h"
#include "api/serving_metrics.h"
#include "obs/metrics.h"

namespace supportd::api {
namespace {

// The tenants this server knows: those of its API keys, or "anonymous" without keys.
std::vector<std::string> known_tenants(const Services& services) {
  std::vector<std::string> tenants;
  if (services.access != nullptr) {
    for (const auto& [tenant, weight] : services.access->tenant_weights())
      tenants.push_back(tenant);
  }
  if (tenants.empty()) tenants.push_back("anonymous");
  return tenants;
}

}  // namespace

http::Response stats(Services& services, http::Request&) {
  if (services.metrics == nullptr) {
    return http::error_response(404, "metrics are not enabled", "invalid_request_error",
                                "not_found");
  }
  boost::json::object document = services.metrics->stats_object();
  if (services.desk != nullptr)
    document["desk"] = desk_stats(*services.desk, known_tenants(services));
  return http::Response::json(200, boost::json::serialize(document));
}

http::Response metrics(Services& services, http::Request&) {
  if (services.metrics == nullptr) {
    return http::error_response(404, "metrics are not enabled", "invalid_request_error",
                                "not_found");
  }
  return http::Response::text(200, services.metrics->registry().expose(),
                              "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace supportd::api
