// Every subject, stream and consumer name the cluster uses, in one place. A request id and a
// gateway or engine id are single subject tokens (letters, digits, '-'; no '.', '*', '>').
#pragma once

#include <string>
#include <string_view>

#include "sched/priority.h"

namespace supportd::bus::subjects {

// JetStream work queue of requests, one subject per class; one durable consumer per class,
// shared by every engine node.
inline constexpr std::string_view kRequestStream = "SUPPORTD_REQUESTS";
inline constexpr std::string_view kRequestPrefix = "supportd.requests.";  // + high|normal|low
// Large messages split into chunks (bus/blobs.h), deleted when their request ends; kept at most
// an hour otherwise.
inline constexpr std::string_view kBlobStream = "SUPPORTD_BLOBS";
inline constexpr std::string_view kBlobPrefix = "supportd.blobs.";  // + request id
// Core NATS: "there is new work" after a request is stored, so idle engines pull at once.
inline constexpr std::string_view kWork = "supportd.work";
// Core NATS: each engine node's load and measured rate, twice a second.
inline constexpr std::string_view kEnginePrefix = "supportd.engines.";  // + engine id
// Core NATS, gateway -> engines: stop (or give back) a request.
inline constexpr std::string_view kCancelPrefix = "supportd.cancel.";  // + request id

// Core NATS, gateway -> gateways: the desk's live events (an agent's message, a handoff, the
// waiting list) for the sockets other gateways hold (app/hub_relay.h).
inline constexpr std::string_view kDeskSessionEvents = "supportd.desk.session";
inline constexpr std::string_view kDeskAgentEvents = "supportd.desk.agents";
inline constexpr std::string_view kDeskEvents = "supportd.desk.>";

inline std::string request(sched::Priority priority) {
  return std::string(kRequestPrefix) + sched::priority_name(priority);
}
inline std::string consumer(sched::Priority priority) {
  return std::string("engines-") + sched::priority_name(priority);
}
// Token events of one request, from whichever engine holds it to the gateway that owns it.
inline std::string tokens(std::string_view gateway, std::string_view request_id) {
  return "supportd.tokens." + std::string(gateway) + "." + std::string(request_id);
}
inline std::string tokens_of_gateway(std::string_view gateway) {
  return "supportd.tokens." + std::string(gateway) + ".>";
}
// Request/reply: an engine that took a redelivered request asks its gateway how far the
// customer's stream got.
inline std::string progress(std::string_view gateway, std::string_view request_id) {
  return "supportd.progress." + std::string(gateway) + "." + std::string(request_id);
}
inline std::string progress_of_gateway(std::string_view gateway) {
  return "supportd.progress." + std::string(gateway) + ".>";
}
inline std::string cancel(std::string_view request_id) {
  return std::string(kCancelPrefix) + std::string(request_id);
}
inline std::string blob(std::string_view request_id) {
  return std::string(kBlobPrefix) + std::string(request_id);
}
// The last token of a subject (the request id of a tokens/progress/cancel subject).
inline std::string_view last_token(std::string_view subject) {
  const std::size_t dot = subject.rfind('.');
  return dot == std::string_view::npos ? subject : subject.substr(dot + 1);
}

}  // namespace supportd::bus::subjects
