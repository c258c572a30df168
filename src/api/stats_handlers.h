// Operational endpoints: /v1/stats (JSON).
#pragma once

#include "api/routes.h"
#include "http/message.h"

namespace supportd::api {

http::Response stats(Services& services, http::Request& request);

}  // namespace supportd::api
