// Operational endpoints: /v1/stats (JSON: percentiles over a sliding window, and the desk's
// figures when it is on) and /metrics (Prometheus text format).
#pragma once

#include "api/routes.h"
#include "http/message.h"

namespace supportd::api {

http::Response stats(Services& services, http::Request& request);
http::Response metrics(Services& services, http::Request& request);

}  // namespace supportd::api
