// A gateway's view of the cluster: the engine nodes alive (from their heartbeats on
// supportd.engines.*), their slots, load and measured rates, and how many requests of each
// class wait in JetStream (the consumers' pending counts, read every `poll`). Admission
// (bus/cluster_admission.h) decides from a snapshot of it.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>

#include "bus/connection.h"
#include "bus/jetstream.h"
#include "core/status.h"
#include "engine/engine.h"

namespace supportd::bus {

struct ClusterSnapshot {
  int engines = 0;             // alive and ready
  int slots = 0;               // requests they take at once, together
  int held = 0;                // requests they hold now
  double completion_rate = 0;  // requests per second they complete together (0: unknown yet)
  double service_seconds = 0;  // mean start-to-end time of a request (0: unknown yet)
  // Requests per class stored and not yet taken by an engine, as last read, plus those this
  // gateway stored since.
  std::array<std::int64_t, engine::kPriorityCount> queued{};
  bool queue_known = false;  // the pending counts were read at least once since the link is up
  std::optional<engine::ModelCard> model;  // of the engines (the first one heard)
  // How long no engine has been alive (zero while one is).
  std::chrono::milliseconds without_engines{0};
};

class ClusterView {
 public:
  // Subscribes to the heartbeats and starts reading queue depths every `poll`.
  static Result<std::unique_ptr<ClusterView>> start(Connection& connection,
                                                    std::chrono::milliseconds poll);
  ~ClusterView();

  ClusterSnapshot snapshot() const;
  // This gateway stored a request of `priority` (counted as queued until the next read).
  void stored(engine::Priority priority);

  struct State;

 private:
  explicit ClusterView(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace supportd::bus
