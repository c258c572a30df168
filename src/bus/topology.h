// The JetStream objects the cluster needs, declared by every gateway and engine node at start
// and again after the link comes back (a NATS server restarted on an empty store): the request
// work queue with one subject and one durable pull consumer per priority class, and the stream
// that carries large messages in chunks. Declaring is idempotent; the last process to declare
// sets the shared settings (they should agree across the cluster).
#pragma once

#include <chrono>

#include "bus/jetstream.h"
#include "core/status.h"

namespace supportd::bus {

struct ClusterSettings {
  // A held request not acknowledged for this long is redelivered to another engine; holders
  // say "in progress" every quarter of it.
  std::chrono::milliseconds ack_wait{4000};
  // Deliveries of one request before JetStream gives up on it (each engine that dies holding
  // it uses one; a gateway ends the request with an error when none is left).
  int max_deliver = 5;
  // Requests per class in the cluster's queue (queued or held); the next one is refused
  // (429) by the server itself. 0: no bound.
  int queue_bound = 1024;
};

Status declare_topology(JetStream& jetstream, const ClusterSettings& settings);

}  // namespace supportd::bus
