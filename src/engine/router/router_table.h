// The router's inside (router_engine.cpp, router_watch.cpp, router_shadow.cpp): a version's slot
// and figures, a deployment, and the table that holds them, swapped whole on every change.
// Thread-safety: a Table is immutable once published; a Slot's state and figures are atomics.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/router/canary_check.h"
#include "engine/router/router_engine.h"
#include "engine/router/shadow_queue.h"
#include "engine/router/version_sink.h"
#include "obs/metrics.h"

namespace supportd::engine::router {

struct RouterEngine::Slot {
  std::string name;
  std::uint64_t index = 0;         // 1, 2, ...: the high bits of the request ids it serves
  std::unique_ptr<Engine> engine;  // null while loading, or when loading failed
  VersionFacts facts;
  ModelCard card;
  std::atomic<VersionState> state{VersionState::kReady};
  std::string reason;  // set before the slot is published, never after
  std::shared_ptr<Figures> figures = std::make_shared<Figures>();
  std::shared_ptr<ShadowFigures> shadow_figures = std::make_shared<ShadowFigures>();  // as a shadow
  double load_ms = 0;                // set before the slot is published, never after
  std::atomic<double> warmup_ms{0};  // set before its state turns ready
};

struct Deployment {
  Split split;
  std::vector<std::shared_ptr<RouterEngine::Slot>> slots;  // one per share, in order
  std::vector<Split> past;                                 // earlier splits, newest last
  std::vector<CanarySample> at_set;  // each share's version's figures when the split was set
  std::shared_ptr<RouterEngine::Slot> shadow;  // split.shadow's version; null without one
};

struct RouterEngine::Table {
  std::map<std::string, std::shared_ptr<Slot>, std::less<>> versions;
  std::vector<std::shared_ptr<Slot>> by_index;  // [index - 1]
  std::map<std::string, Deployment, std::less<>> deployments;
};

// Ok when `name` can name a new version in `table`: not empty, not used by a version or a
// deployment. The error: kInvalidArgument, param "name".
Status check_new_version_name(const RouterEngine::Table& table, const std::string& name);

// Why `facts` may not take traffic ("SHA-256 mismatch: ..."), or nothing when the file has the
// expected SHA-256 (or none is expected).
std::optional<std::string> sha256_mismatch(const VersionFacts& facts);

// `slot.card` from its engine's card and its facts. REQUIRES: slot.engine set.
void describe_slot(RouterEngine::Slot& slot);

// What `slot` has done so far, for the canary check.
CanarySample sample_of(const RouterEngine::Slot& slot);

// Puts `split` into effect on `deployment` (set, rollback and restore alike): its share slots,
// its shadow's slot, and each share's figures now as the canary check's starting point.
// `deployment.past` is the caller's to keep.
void put_into_effect(Deployment& deployment, Split split,
                     std::vector<std::shared_ptr<RouterEngine::Slot>> slots,
                     std::shared_ptr<RouterEngine::Slot> shadow);

}  // namespace supportd::engine::router
