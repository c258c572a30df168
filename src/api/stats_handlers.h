// Operational endpoints: /v1/stats (JSON: percentiles over a sliding window, the desk's
// figures when it is on, each model version's figures with a router: "versions"), /metrics
// (Prometheus text format) and /v1/alerts (JSON: the anomaly alerts active and recently ended,
// with the signals' states; 404 with --anomaly off).
#pragma once

#include "api/routes.h"
#include "http/message.h"

namespace supportd::api {

http::Response stats(Services& services, http::Request& request);
http::Response metrics(Services& services, http::Request& request);
http::Response alerts(Services& services, http::Request& request);

}  // namespace supportd::api
