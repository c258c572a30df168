// Which waiting request starts next: pure policy, no model (which running one gives way is
// sched/preemption.h's; whose promise comes first, sched/promises.h's).
//  - Priority classes: high before normal before low; a request waiting longer than
//    `aging` per class step moves up one class, so low is delayed, never starved.
//  - Tenant fairness within a class: start-time fair queueing on engine tokens; each tenant's
//    virtual time is the tokens it used divided by its weight, and the tenant that is furthest
//    behind goes first.
//  - Dynamic batching (optional, the reference scenario's knob): start requests in batches of
//    up to `batch_max`, waiting at most `batch_window` to fill one; early release starts a batch
//    at once when fewer than `early_release_count` requests arrived within `early_release_after`.
// Thread-safety: not thread-safe; owned by the engine thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "sched/priority.h"

namespace supportd::sched {

using Clock = std::chrono::steady_clock;

struct Ticket {
  std::uint64_t id = 0;
  Priority priority = Priority::kNormal;
  std::string tenant;
  Clock::time_point arrived;
  int cells = 0;  // KV cells the request needs to run to completion
};

enum class BatchingMode { kContinuous, kDynamic };

// Bounds (checked by validate): every duration and count >= 0, batch_max >= 1, weights > 0.
struct SchedulerOptions {
  std::chrono::milliseconds aging{
      10000};  // waiting this long moves a request up one class; 0: never
  std::map<std::string, double> tenant_weights;  // > 0 each; absent tenants weigh 1
  BatchingMode batching = BatchingMode::kContinuous;
  int batch_max = 8;                                 // >= 1
  std::chrono::milliseconds batch_window{40};        // >= 0
  int early_release_count = 0;                       // >= 0; 0: no early release
  std::chrono::milliseconds early_release_after{0};  // >= 0
};

// Ok when `options` is within the bounds above; else Error::invalid naming the first option
// out of range (by its field name, e.g. "scheduling.batch_max").
Status validate(const SchedulerOptions& options);

// The class a request of `priority` that arrived at `arrived` competes in at `now`: one class
// up per `aging` waited (0: never), high at most.
Priority effective_priority(Priority priority, Clock::time_point arrived, Clock::time_point now,
                            std::chrono::milliseconds aging);

class Scheduler {
 public:
  // REQUIRES: validate(options) is ok.
  explicit Scheduler(SchedulerOptions options = {});

  // Queues a request. REQUIRES: no waiting ticket has its id.
  void push(Ticket ticket);
  // Removes a waiting request; false when it is not waiting.
  bool erase(std::uint64_t id);

  // The request that should start next at `now`, or null. In dynamic batching, null while the
  // batch is still being collected or a batch is running (`running` sequences).
  const Ticket* next(Clock::time_point now, int running);
  // Removes a waiting ticket: the one next() returned, or another the engine starts instead
  // (a promised deadline).  REQUIRES: it is waiting.
  Ticket pop(std::uint64_t id);

  // The class a waiting ticket competes in now (after aging).
  Priority effective_priority(const Ticket& ticket, Clock::time_point now) const;

  // Engine tokens used by `tenant` (prefill and decode), for fairness.
  void charge(const std::string& tenant, std::int64_t tokens);
  double virtual_time(const std::string& tenant) const;

  bool empty() const { return waiting_.empty(); }
  std::size_t size() const { return waiting_.size(); }
  std::size_t size(Priority priority) const;
  // Earliest wait among queued tickets, for telemetry.
  std::optional<Clock::time_point> oldest() const;
  const SchedulerOptions& options() const { return options_; }

 private:
  double weight(const std::string& tenant) const;
  // Brings an idle tenant's virtual time up to the busy ones' before it competes again.
  void activate(const std::string& tenant);

  SchedulerOptions options_;
  std::list<Ticket> waiting_;              // arrival order
  std::map<std::string, double> virtual_;  // tenant -> tokens / weight
  std::map<std::string, int> queued_;      // tenant -> waiting tickets
  bool batch_open_ = false;                // dynamic batching: admitting the current batch
  int batch_admitted_ = 0;
};

}  // namespace supportd::sched
