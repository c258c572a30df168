#include "api/stats_handlers.h"

#include "api/serving_metrics.h"
#include "obs/metrics.h"

namespace supportd::api {

http::Response stats(Services& services, http::Request&) {
  if (services.metrics == nullptr) {
    return http::error_response(404, "metrics are not enabled", "invalid_request_error",
                                "not_found");
  }
  return http::Response::json(200, services.metrics->stats_json());
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
