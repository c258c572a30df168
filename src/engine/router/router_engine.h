// The model-version router: an Engine made of named Engines (llama, upstream, remote), so the
// API and the desk keep calling one Engine while an operator splits traffic between versions,
// pins requests to one, copies a share of a deployment's requests to a shadow version
// (shadow_queue.h), and rolls a split back. A request names a deployment ("default" when
// it names nothing) or a version (pinned) in GenerationRequest::model; the deployment's split
// picks the version with one hash of the routing key (sticky) or a counter; the sink learns
// the version's name (GenerationSink::on_version) before any text. Per version: its file's
// facts, its state, requests in flight, latency, error and refusal figures, and what its
// copies did as a shadow.
//
// Thread-safety: every method may be called from any thread. The versions and the splits are
// an immutable table swapped whole under a mutex held only to copy or swap a pointer: submit
// takes one hash and one lookup, and no lock is held across a version engine's call.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "engine/router/canary_check.h"
#include "engine/router/shadow_queue.h"
#include "engine/router/split.h"
#include "obs/metrics.h"

namespace supportd::engine::router {

// The deployment every request that names no model reaches.
inline constexpr std::string_view kDefaultDeployment = "default";

// What is known of a version's model file (model/fingerprint.h computes it; empty fields for
// an upstream).
struct VersionFacts {
  std::string path;
  std::string sha256;  // of the whole file, lower-case hex
  std::int64_t bytes = 0;
  std::string architecture;          // general.architecture
  std::string quantization;          // predominant weight type, e.g. "Q8_0"
  std::string chat_template_sha256;  // of the chat template's text; empty without one
  std::string expected_sha256;       // what the configuration says it must be; empty: unchecked
};

enum class VersionState { kLoading, kWarming, kReady, kDraining, kFailed };
const char* version_state_name(VersionState state);

// How load_version builds a version (the app makes one from serve's engine options).
struct VersionLoader {
  // The file's facts (model/fingerprint.h), with the SHA-256 the caller expects; runs first.
  std::function<Result<VersionFacts>()> inspect;
  // Loads the model and starts its engine, which warms up (a representative batch) before
  // its ready() turns true.
  std::function<Result<std::unique_ptr<Engine>>()> create;
};

// What POST /admin/models asks to load: a model file (path) or an upstream server (upstream).
struct VersionSpec {
  std::string name;
  std::string path;             // a GGUF file; empty for an upstream
  std::string upstream;         // an OpenAI-compatible server's URL; empty for a file
  std::string upstream_model;   // the model to ask the upstream for; empty: serve's default
  std::string expected_sha256;  // empty: not checked (a file's)
  int parallel = 0;             // 0: serve's (a file's)
  int context_cells = 0;        // 0: serve's (a file's)
};

// One version as GET /admin/models shows it.
struct VersionView {
  std::string name;
  ModelCard card;
  VersionFacts facts;
  VersionState state = VersionState::kReady;
  std::string reason;  // why it is failed
  int in_flight = 0;
  std::int64_t requests = 0;  // given to it
  std::int64_t errors = 0;    // ended with kError
  std::int64_t refusals = 0;  // refused at submit (queue full ...) or by their deadline
  double ttft_p50_ms = 0;
  double ttft_p99_ms = 0;
  double itl_p50_ms = 0;  // between two pieces of text
  double itl_p99_ms = 0;
  double e2e_p50_ms = 0;
  double e2e_p99_ms = 0;
  double load_ms = 0;    // loaded at run time: checking the file and loading the model
  double warmup_ms = 0;  // loaded at run time: the warm-up and the check request
  ShadowSummary shadow;  // its copies as a shadow (all 0 when it never was one)
};

// One change of a deployment's split, as the route history keeps it.
struct RouteChange {
  std::string deployment;
  std::string action;  // "set" or "rollback"
  Split before;        // empty shares: the deployment did not exist
  Split after;
  std::string who;           // the admin caller's description
  std::int64_t unix_ms = 0;  // when
};

class RouterEngine final : public Engine {
 public:
  RouterEngine();
  ~RouterEngine() override;

  // Adds a version serving through `engine`. The first version added takes the deployment
  // "default" whole, unless it failed. A version whose facts carry an expected SHA-256 that
  // differs from the file's is added as kFailed with the reason and never takes traffic.
  // Errors (kInvalidArgument, param "name"): an empty name, a name already used (by a version
  // or a deployment).
  Status add_version(const std::string& name, std::unique_ptr<Engine> engine, VersionFacts facts);

  // Loads `name` in the background, on a thread of the router: state loading while
  // loader.inspect checks the file and loader.create loads it, warming while its engine warms
  // up and then answers one check request, ready after (the warm-up's time in
  // VersionView::warmup_ms); failed, with the reason, when a step fails, the engine does not
  // become ready within `warmup_timeout`, or the file's SHA-256 is not the expected one. The
  // version takes no request, pinned or split, before ready; other versions' streams are not
  // touched. Errors (kInvalidArgument, param "name"): as add_version's.
  Status load_version(const std::string& name, const std::string& path, VersionLoader loader,
                      std::chrono::milliseconds warmup_timeout = std::chrono::minutes(10));

  // Sets `deployment`'s split (creating the deployment), its shadow too (none when the split
  // has none). Errors (kInvalidArgument, the field as param): check_split's, a version that
  // does not exist ("weights.NAME", "shadow.version"), one that is not ready, a deployment
  // named like a version ("deployment").
  Status set_route(const std::string& deployment, Split split, const std::string& who);
  // Puts back the split `deployment` had before its last change, at once. Errors: kNotFound
  // for an unknown deployment; kInvalidArgument (param "deployment") when it has no earlier
  // split or that split names a version no longer ready.
  Status rollback(const std::string& deployment, const std::string& who);

  // Drains `name` and then unloads it, in the background: from now on it takes no new
  // request (state draining); its requests in flight get up to `timeout` to finish, then the
  // rest are cancelled, its engine is shut down and the version is gone. Returns the requests
  // in flight when the drain began. Errors: kNotFound (param "name") for an unknown version;
  // kInvalidArgument (param "name") while a deployment still gives it traffic or shadows onto
  // it (move the traffic first), while it is loading or warming, or when it is draining
  // already.
  Result<int> unload(const std::string& name, std::chrono::milliseconds timeout);

  // At start, before traffic: puts back each deployment's split as the route history
  // `earlier` (oldest first, as a store kept it) left it, with its earlier splits (so a
  // rollback after a restart goes where it would have gone), without recording a change. A
  // deployment whose last split names a version that is not here or not ready keeps what it
  // has (the deployment "default": everything on the first version), and a warning naming the
  // version is logged. Returns the deployments restored.
  std::vector<std::string> restore_routes(const std::vector<RouteChange>& earlier);

  // Automatic rollback: every `interval`, on a thread of its own, check_canaries(limits);
  // `on_rollback(deployment, verdict)` is told of each rollback it made (an alert). Call once,
  // before traffic.
  using RollbackListener = std::function<void(const std::string&, const std::string&)>;
  void watch_canaries(CanaryLimits limits, std::chrono::milliseconds interval,
                      RollbackListener on_rollback);
  // One pass of the automatic rollback, now: in each deployment whose split has an earlier one,
  // the version that had the most weight in that earlier split is stable, the others with
  // weight are canaries; a canary worse than stable since the split was set (canary_check.h)
  // rolls the deployment back, by "automatic rollback: VERDICT". Returns (deployment, verdict)
  // for each rollback made.
  std::vector<std::pair<std::string, std::string>> check_canaries(const CanaryLimits& limits);

  // Shadow copies: the queue's bounds, and a hook run on its thread before each copy is
  // submitted (a drill's faults; false refuses the copy). Defaults: ShadowLimits{}, no hook.
  void configure_shadows(ShadowLimits limits, ShadowQueue::Prepare prepare);
  const ShadowQueue& shadows() const { return shadows_; }

  // The route history kept elsewhere (a store, so it survives a restart): `earlier` (oldest
  // first) comes before this run's changes in history(); `listener` is told of each change
  // once made, on the thread that made it (an admin request, the canary watch). Call once,
  // before traffic.
  using ChangeListener = std::function<void(const RouteChange&)>;
  void keep_history(std::vector<RouteChange> earlier, ChangeListener listener);

  std::vector<VersionView> versions() const;
  std::map<std::string, Split> routes() const;
  std::vector<RouteChange> history() const;  // oldest first
  // Reasons the router is degraded (a version failed its SHA-256 check ...); empty when not.
  std::vector<std::string> problems() const;

  // --- Engine ---
  // The card of the deployment "default" (its id "default"; the text meaningless when any
  // version's is).
  const ModelCard& model() const override;
  bool knows_model(std::string_view name) const override;
  std::vector<ModelCard> models() const override;
  // The version submit would give such a request now: under a sticky split with a routing
  // key, the one the key's hash falls in (the same hash submit takes, so a conversation's
  // turns that do not generate count for the version its generated turns go to); without a
  // key or stickiness, a draw of its own (not submit's counter) in the split's weights; a
  // version's own name when `model` names one (pinned). Empty for an unknown name or a
  // deployment that does not exist (no ready first version). A version not ready is still
  // named: it is the arm, though submit would refuse the request.
  std::string version_for(std::string_view model, std::string_view routing_key) const override;
  // Errors: kNotFound (param "model") for a name that is neither a deployment nor a version;
  // kUnavailable when the chosen version is not ready; the version engine's own.
  Result<RequestId> submit(GenerationRequest request,
                           std::shared_ptr<GenerationSink> sink) override;
  void cancel(RequestId id) override;
  bool ready() const override;         // the deployment "default" has a ready version
  EngineStats stats() const override;  // summed over the versions
  void shutdown() override;            // the shadow queue first, then every version

  struct Slot;   // one version (router_engine.cpp)
  struct Table;  // versions and deployments, swapped whole

 private:
  std::shared_ptr<const Table> table() const;
  void publish(std::shared_ptr<const Table> table);  // REQUIRES: change_mutex_ held
  // The slot of `split`'s shadow in `table` (null without one). Errors (kInvalidArgument,
  // param "shadow.version"): no such version, or one not ready. (router_shadow.cpp)
  Result<std::shared_ptr<Slot>> shadow_slot(const Table& table, const Split& split) const;
  // The slot of each of `split`'s shares in `table`. Errors (kInvalidArgument, param
  // "weights.NAME"): no such version, or one with weight that is not ready.
  Result<std::vector<std::shared_ptr<Slot>>> share_slots(const Table& table,
                                                         const Split& split) const;
  // A copy of `request` for `shadow` (its pair is the one production's sink must feed), or
  // nothing when the shadow is draining. It is offered to the queue (shadows_.offer) only after
  // production's submit: a copy started before production's request is in its engine would
  // find no caller's work anywhere and compute in a "gap" that is the caller's prefill
  // (compute_gate.h). (router_shadow.cpp)
  std::optional<ShadowCopy> copy_for_shadow(const GenerationRequest& request,
                                            const std::shared_ptr<Slot>& shadow) const;
  // The end of unload(): waits for `slot`'s requests (or the timeout or a stop), shuts its
  // engine down and takes it out of the table.
  void finish_drain(std::stop_token stop, std::shared_ptr<Slot> slot,
                    std::chrono::milliseconds timeout);
  // The rest of load_version, on its thread (version_loading.cpp).
  void finish_load(std::stop_token stop, std::shared_ptr<Slot> placeholder, VersionLoader loader,
                   std::chrono::milliseconds warmup_timeout);
  // Adds `change` to the history and tells the listener (outside the history's lock; under
  // change_mutex_, so a store sees the changes in their order).
  void record(RouteChange change);
  // Puts `next` where `previous` (a slot of the same name and index) is, in the versions and
  // in any deployment that holds it.
  void replace_slot(const std::shared_ptr<Slot>& previous, std::shared_ptr<Slot> next);

  mutable std::mutex table_mutex_;  // guards table_ (the pointer only)
  std::shared_ptr<const Table> table_;
  std::mutex change_mutex_;  // one change at a time (add, set, rollback)
  mutable std::mutex history_mutex_;
  std::vector<RouteChange> history_;                 // guarded by history_mutex_
  ChangeListener change_listener_;                   // guarded by history_mutex_
  std::atomic<std::uint64_t> counter_{0};            // draws of the requests without a routing key
  mutable std::atomic<std::uint64_t> arm_draws_{0};  // version_for's, likewise
  std::atomic<std::uint64_t> shadow_draws_{0};       // draws of the requests a shadow may copy
  ShadowQueue shadows_;
  std::mutex drains_mutex_;
  std::vector<std::jthread>
      drains_;          // and loads; guarded by drains_mutex_; joined by the destructor
  std::jthread watch_;  // the canary watch, when started
  ModelCard card_;      // set while the first versions are added
};

}  // namespace supportd::engine::router
