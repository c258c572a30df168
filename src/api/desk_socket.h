// The desk's WebSocket endpoints: /v1/ws?session=... for a customer's conversation and
// /v1/agent/ws for a tenant's agents (docs/api.md).
#pragma once

#include "api/routes.h"
#include "http/message.h"

namespace supportd::api {

http::Response customer_socket(Services& services, http::Request& request);
http::Response agent_socket(Services& services, http::Request& request);

}  // namespace supportd::api
