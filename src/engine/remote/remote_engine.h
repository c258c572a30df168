// An Engine whose requests run on engine nodes of the cluster (supportd serve --role engine),
// reached over NATS JetStream: what a gateway (--role gateway) serves with, so api/ and desk/
// do not know the cluster exists.
//
// submit() refuses at once what the cluster cannot take (bus/cluster_admission.h), then stores
// the request on supportd.requests.<class> with its id as the JetStream message id and returns
// once the server has it (on disk). Tokens come back on the request's own subject, numbered;
// the sink gets each number once, in order: a number already delivered is dropped, an event of
// a superseded attempt is dropped, and a missing number makes the holder give the request back
// so a new attempt resumes from what the customer has. When an engine dies holding a request,
// JetStream redelivers it after the ack wait; the new holder asks this gateway how far the
// stream got (supportd.progress.<gateway>.<id>) and continues after it: the customer sees a
// pause, no gap, no repeat. A request that cannot go on ends with an error, never a hang:
// its deadline passed, no engine is left, every delivery was used, or its holder went silent
// and its message left the queue.
// Thread-safety: every method may be called from any thread; sinks are called one at a time
// per request (from libnats' threads or the engine's timer thread), never from inside
// cancel() or submit().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "bus/connection.h"
#include "bus/topology.h"
#include "engine/engine.h"

namespace supportd::engine::remote {

struct RemoteOptions {
  std::string gateway_id;  // unique in the cluster; empty: host name, pid and a random suffix
  bus::ClusterSettings cluster;
  std::chrono::milliseconds queue_poll{200};      // how often queue depths are read
  std::chrono::milliseconds store_timeout{2000};  // waiting for JetStream to take a request
};

struct RemoteStats {
  int engines = 0;                   // engine nodes alive and ready
  std::int64_t submitted = 0;        // stored in the cluster's queue
  std::int64_t resumed = 0;          // streams continued by another attempt after a pause
  std::int64_t duplicates = 0;       // token events dropped: that number was delivered already
  std::int64_t superseded = 0;       // events dropped from an attempt no longer current
  std::int64_t gaps = 0;             // missing numbers that made a holder give a request back
  std::int64_t lost = 0;             // requests ended with an error because none could go on
  double resume_pause_ms_total = 0;  // the customers' extra waits of the resumed streams
};

class RemoteEngine final : public Engine {
 public:
  // Declares the cluster's streams, subscribes to this gateway's token and progress subjects
  // and starts watching the engines. `connection` must outlive the engine.
  static Result<std::unique_ptr<RemoteEngine>> create(bus::Connection& connection,
                                                      RemoteOptions options);
  ~RemoteEngine() override;

  // The engines' model card (the first engine heard); a placeholder until one is.
  const ModelCard& model() const override;
  Result<RequestId> submit(GenerationRequest request,
                           std::shared_ptr<GenerationSink> sink) override;
  void cancel(RequestId id) override;
  // The link is up and an engine is alive and ready.
  bool ready() const override;
  // running: requests held by engines; waiting: queued in JetStream (per class too).
  EngineStats stats() const override;
  void shutdown() override;

  RemoteStats remote_stats() const;
  const std::string& gateway_id() const;

  struct State;

 private:
  explicit RemoteEngine(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace supportd::engine::remote
