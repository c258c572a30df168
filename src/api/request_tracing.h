// Tracing at the API's edge: every request gets the HTTP SERVER span of the OpenTelemetry HTTP
// conventions, named by its route ("POST /v1/chat/completions"), continuing the caller's
// traceparent (or starting a trace); every response carries traceparent and X-Request-Id;
// while the handler runs, the request's trace is the thread's current one (obs/trace/current.h),
// so the layers below add their spans to it and log lines carry its ids.
// Thread-safety: the watcher is called by the server from any connection; each watch is used
// by its connection only.
#pragma once

#include <string>

#include "http/request_watch.h"
#include "http/router.h"

namespace supportd::obs::trace {
class Tracer;
}

namespace supportd::api {

// What the HTTP server calls for each request; `scheme`: "http", or "https" for a server that
// speaks TLS (url.scheme). REQUIRES: `tracer` outlives the server.
http::RequestWatcher make_request_watcher(obs::trace::Tracer& tracer, std::string scheme = "http");

// Router::on_match: names the current request's trace after its route ("POST /v1/answer").
void name_route(const http::Request& request, const std::string& route_name);

// Tags the current request's trace (if any) with its tenant, once the caller is known.
void tag_tenant(const std::string& tenant);

}  // namespace supportd::api
