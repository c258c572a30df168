// The kept traces for an operator without a tracing backend: GET /v1/traces lists the recent
// slow or failed requests (newest first, `limit` of them, default 50) with the stage breakdown
// of each; GET /v1/traces/{trace_id} gives one with every span, for the dashboard's waterfall.
// docs/api.md describes the documents. 404 when tracing is off or the trace is no longer kept.
#pragma once

#include "api/routes.h"
#include "http/message.h"

namespace supportd::api {

http::Response list_traces(Services& services, http::Request& request);
http::Response get_trace(Services& services, http::Request& request);

}  // namespace supportd::api
