// The router's inside (router_engine.cpp, router_watch.cpp): a version's slot and figures,
// a deployment, and the table that holds them, swapped whole on every change.
// Thread-safety: a Table is immutable once published; a Slot's state and figures are atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/router/canary_check.h"
#include "engine/router/router_engine.h"
#include "obs/metrics.h"

namespace supportd::engine::router {

// What a version's requests add up to; shared with the sinks of its requests in flight.
struct Figures {
  std::atomic<int> in_flight{0};
  std::atomic<std::int64_t> requests{0};
  std::atomic<std::int64_t> errors{0};
  std::atomic<std::int64_t> refusals{0};  // ended by their deadline
  obs::Histogram ttft_ms{obs::exponential_buckets(1, 1.5, 32)};
  obs::Histogram e2e_ms{obs::exponential_buckets(1, 1.5, 32)};
};

struct RouterEngine::Slot {
  std::string name;
  std::uint64_t index = 0;  // 1, 2, ...: the high bits of the request ids it serves
  std::unique_ptr<Engine> engine;
  VersionFacts facts;
  ModelCard card;
  std::atomic<VersionState> state{VersionState::kReady};
  std::string reason;  // set before the slot is published, never after
  std::shared_ptr<Figures> figures = std::make_shared<Figures>();
};

struct Deployment {
  Split split;
  std::vector<std::shared_ptr<RouterEngine::Slot>> slots;  // one per share, in order
  std::vector<Split> past;                                 // earlier splits, newest last
  std::vector<CanarySample> at_set;  // each share's version's figures when the split was set
};

struct RouterEngine::Table {
  std::map<std::string, std::shared_ptr<Slot>, std::less<>> versions;
  std::vector<std::shared_ptr<Slot>> by_index;  // [index - 1]
  std::map<std::string, Deployment, std::less<>> deployments;
};

// What `slot` has done so far, for the canary check.
CanarySample sample_of(const RouterEngine::Slot& slot);

}  // namespace supportd::engine::router
