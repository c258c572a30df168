// The fault-injection routes (behind the admin key, and only with `serve --faults`) and where
// the API applies the faults it decides itself:
//   POST   /admin/faults       arm one: {"stage", "kind", "delay_ms" | "status" |
//                              "tokens_per_second", "percent", "class", "tenant", "expires_s"}
//                              -> 201 and the fault; 400 naming the field; 409 at the cap
//   GET    /admin/faults       {"faults": [...], "max_faults": N}
//   DELETE /admin/faults       the kill switch: every fault disarmed -> {"removed": N}
//   DELETE /admin/faults/{id}  one -> {"removed": 1}; 404 when not armed
// Without --faults these answer 404 (after the admin key's check). Stages: http (here, before
// a route's handler), queue, prefill, decode (before submit: a queue delay waits here, engine
// delays and throttles become GenerationRequest::injected, aborts are answered here with their
// status), retrieval, store, encoder (in the desk). Thread-safety: handlers run on any thread.
#pragma once

#include <optional>
#include <string_view>

#include "api/routes.h"
#include "engine/request.h"
#include "http/message.h"

namespace supportd::api {

http::Response add_fault(Services& services, http::Request& request);
http::Response list_faults(Services& services, http::Request& request);
http::Response clear_faults(Services& services, http::Request& request);
http::Response remove_fault(Services& services, http::Request& request);

// `handler` with the http stage's faults in front (none without services.faults).
http::Router::Handler with_http_faults(Services& services, http::Router::Handler handler);

// The queue, prefill and decode stages' faults for a request about to be submitted: waits out
// a queue delay, writes engine delays and throttles into `request.injected`; returns the
// answer instead of submitting when a fault aborts it. Nothing without services.faults.
std::optional<http::Response> inject_before_submit(Services& services,
                                                   engine::GenerationRequest& request);

}  // namespace supportd::api
