// The engine node's side of the cluster: a worker that pulls requests from JetStream and drives
// a local Engine (engine/llama, or an upstream) with them.
//
// - It holds at most `slots` requests. With a slot free it pulls one message (a batch of one)
//   from the highest class that has one, so priority holds across every gateway and engine;
//   it never takes work it cannot start.
// - While it holds a request it tells JetStream "in progress" every quarter of the ack wait and
//   the gateway "alive"; when the request ends it publishes the end and then acknowledges
//   synchronously. An engine that dies (kill -9) stops both: JetStream redelivers the request
//   after the ack wait to another engine.
// - Tokens go to the gateway on the request's token subject, numbered 1, 2, ... across
//   attempts. A redelivered request (attempt > 1) first asks its gateway how far the customer
//   got, then continues after the text the customer has (GenerationRequest::continuation), so
//   the stream resumes with no gap and no repeat.
// - A cancel order on supportd.cancel.<id> stops the local request at once; requests cancelled
//   before they reach this node are remembered for a minute and dropped when pulled.
// - Twice a second it publishes its load and measured rate on supportd.engines.<id>, which
//   gateways use for admission.
// Thread-safety: stop() and stats() may be called from any thread; the worker runs on its own.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "bus/connection.h"
#include "bus/topology.h"
#include "core/status.h"
#include "engine/engine.h"

namespace supportd::bus {

struct WorkerOptions {
  std::string engine_id;  // unique in the cluster; empty: host name, pid and a random suffix
  int slots = 1;          // requests held at once (the local engine's parallel sequences)
  ClusterSettings cluster;
  std::chrono::milliseconds heartbeat{500};  // load published this often
  // Between pulls while idle; a gateway's "new work" ping wakes the worker sooner. It bounds
  // how late a redelivered request (which comes with no ping) is noticed.
  std::chrono::milliseconds idle_poll{100};
};

struct WorkerStats {
  int held = 0;
  std::int64_t taken = 0;       // requests pulled and started
  std::int64_t finished = 0;    // ended and acknowledged
  std::int64_t resumed = 0;     // redelivered requests continued after the customer's text
  std::int64_t given_back = 0;  // handed back to the queue (a gateway's request, or stop())
  std::int64_t dropped = 0;     // pulled but nobody waited any more (cancelled, finished)
  double completion_rate = 0;   // requests per busy second, recent
  double service_seconds = 0;   // mean start-to-end time, recent
};

class EngineWorker {
 public:
  // Declares the cluster's streams, binds the consumers, subscribes and starts pulling.
  // `connection` and `local` must outlive the worker.
  static Result<std::unique_ptr<EngineWorker>> start(Connection& connection, engine::Engine& local,
                                                     WorkerOptions options);
  ~EngineWorker();  // stop(0)

  // Stops pulling; waits up to `grace` for the requests it holds to end, then stops the rest
  // and hands them back to the queue, where other engines resume them. Idempotent.
  void stop(std::chrono::milliseconds grace);
  WorkerStats stats() const;
  const std::string& engine_id() const;

  struct State;

 private:
  explicit EngineWorker(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace supportd::bus
